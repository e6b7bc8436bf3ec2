package config

import (
	"fmt"
	"time"
)

// RateLimits bound how fast one source address, or one client, may use the
// OAuth endpoints: registration (source 7.3 and 8, "Registration is rate
// limited per source address") and device authorization (RFC 8628 section
// 5.1 and 5.2). Each is a token bucket: Burst at once, then one more every
// Every. Zero means the default of package oauth (20 registrations, one more
// every 3 minutes; 30 device authorizations, one more every 10 seconds).
//
// An operator who runs the suite against this host again and again (a
// development loop, CI) shortens registration_every, so that the allowance
// the registration-limit probe spends refills between runs.
type RateLimits struct {
	RegistrationBurst int           `yaml:"registration_burst"`
	RegistrationEvery time.Duration `yaml:"registration_every"`
	DeviceBurst       int           `yaml:"device_burst"`
	DeviceEvery       time.Duration `yaml:"device_every"`
}

// validate reports every negative value: a bucket never holds less than
// nothing, nor refills backwards.
func (r RateLimits) validate() []error {
	var errs []error
	for _, n := range []struct {
		key   string
		value int
	}{{"registration_burst", r.RegistrationBurst}, {"device_burst", r.DeviceBurst}} {
		if n.value < 0 {
			errs = append(errs, fmt.Errorf("rate_limits.%s %d: must be at least 1 (0 for the default)", n.key, n.value))
		}
	}
	for _, d := range []struct {
		key   string
		value time.Duration
	}{{"registration_every", r.RegistrationEvery}, {"device_every", r.DeviceEvery}} {
		if d.value < 0 {
			errs = append(errs, fmt.Errorf("rate_limits.%s %s: must be positive (0 for the default)", d.key, d.value))
		}
	}
	return errs
}
