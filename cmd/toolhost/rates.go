package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/conform-mcp/conform/impl/config"
	"github.com/conform-mcp/conform/impl/oauth"
)

// rateFlags are toolhost serve's flags for the configuration's rate_limits
// (source 7.3 and 8; RFC 8628 5.1). A flag given on the command line wins
// over the file; one not given leaves the file's value.
type rateFlags struct {
	flags             *pflag.FlagSet
	registrationBurst int
	registrationEvery time.Duration
	deviceBurst       int
	deviceEvery       time.Duration
}

func (r *rateFlags) bind(fl *pflag.FlagSet) {
	r.flags = fl
	fl.IntVar(&r.registrationBurst, "registration-burst", 0, fmt.Sprintf("registrations one source address may make at once (default: the config's rate_limits, else %d)", oauth.DefaultRegistrationBurst))
	fl.DurationVar(&r.registrationEvery, "registration-every", 0, fmt.Sprintf("one more registration is allowed every this long once the burst is spent (default: the config's, else %s)", oauth.DefaultRegistrationEvery))
	fl.IntVar(&r.deviceBurst, "device-burst", 0, fmt.Sprintf("device authorizations one source address may start at once (default: the config's, else %d)", oauth.DefaultDeviceBurst))
	fl.DurationVar(&r.deviceEvery, "device-every", 0, fmt.Sprintf("one more device authorization every this long once the burst is spent (default: the config's, else %s)", oauth.DefaultDeviceEvery))
}

// apply writes the flags given on the command line into limits.
func (r *rateFlags) apply(limits *config.RateLimits) {
	if r.flags.Changed("registration-burst") {
		limits.RegistrationBurst = r.registrationBurst
	}
	if r.flags.Changed("registration-every") {
		limits.RegistrationEvery = r.registrationEvery
	}
	if r.flags.Changed("device-burst") {
		limits.DeviceBurst = r.deviceBurst
	}
	if r.flags.Changed("device-every") {
		limits.DeviceEvery = r.deviceEvery
	}
}
