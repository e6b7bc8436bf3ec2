package steps

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/wire"
)

// registerLimits binds the steps that probe the per-address registration
// limit (source 7.3 and 8).
func (st *sourceState) registerLimits(sc stepContext) {
	st.vars["registration_limit"] = strconv.Itoa(st.Target.Profile.RegistrationLimit)
	sc.Step(`^a client registers repeatedly, at most (\S+) times, until refused$`, st.probeLimit)
	sc.Step(`^a registration was refused$`, st.registrationRefused)
	sc.Step(`^the registered client still works$`, st.registeredClientWorks)
}

// limitProbe records the registration-limit probe (source 7.3 and 8).
type limitProbe struct {
	sent, accepted int
	limit          int
	refusal        *oauthclient.Reply
	last           *oauthclient.Reply
}

// refusesRegistration says whether a reply refuses a well-formed
// registration in a way that can be the per-address limit: the throttled
// response is not shown (source 7.3, 8), so any 4xx counts, and a 503 with
// Retry-After.
func refusesRegistration(r *oauthclient.Reply) bool {
	return (r.Status >= 400 && r.Status < 500) || r.Throttled()
}

// probeLimit registers as a client that registers at every start would,
// until the host refuses or registration_limit is reached (source 7.3, 8).
func (st *sourceState) probeLimit(ctx context.Context, limitText string) error {
	limitText, err := st.expand(limitText)
	if err != nil {
		return err
	}
	limit, err := strconv.Atoi(limitText)
	if err != nil || limit < 1 {
		return fmt.Errorf("registration limit %q is not a positive number", limitText)
	}
	p := &limitProbe{limit: limit}
	st.flow.probe = p
	started := time.Now()
	lastNote := started
	for p.sent < limit {
		r, err := st.OAuth.Register(ctx, clientBody)
		if err != nil {
			return st.depart(fmt.Sprintf("registration %d of the limit probe", p.sent+1), "an HTTP response", err.Error())
		}
		p.sent++
		p.last = r
		st.oauth = r
		st.hearOAuth(r)
		switch {
		case r.Status/100 == 2:
			p.accepted++
			st.clients.accepted()
		case refusesRegistration(r):
			p.refusal = r
			return nil
		default:
			return st.depart(fmt.Sprintf("registration %d of the limit probe", p.sent),
				"a 2xx acceptance, or a refusal (a 4xx, or 503 with Retry-After)", describeOAuth(r), r.Exchange)
		}
		// A slow host turns the probe into a long wait; say so (PRODUCT.md 8).
		if now := time.Now(); st.Announce != nil && now.Sub(lastNote) > 10*time.Second {
			lastNote = now
			remaining := time.Duration(limit-p.sent) * now.Sub(started) / time.Duration(p.sent)
			st.Announce(fmt.Sprintf("probing the registration limit: %d of at most %d registrations sent", p.sent, limit), remaining)
		}
	}
	return nil
}

// registrationRefused judges the probe. The throttled response is not shown
// (source 8), so any 4xx counts once this address has had a registration
// accepted, in the run or as the client kept from an earlier one (source
// 7.3: a client registers once and keeps its client_id): that tells a
// throttle from a refused request.
func (st *sourceState) registrationRefused() error {
	p := st.flow.probe
	if p == nil {
		return fmt.Errorf("no registration probe in this scenario")
	}
	if p.refusal == nil {
		return st.depart("per-address registration limit (source 7.3, 8)",
			fmt.Sprintf("a refusal within %d registrations (registration_limit in the profile)", p.limit),
			fmt.Sprintf("all %d registrations went through unthrottled; if the host's limit is higher, raise registration_limit (now %d) above it",
				p.sent, p.limit), lastExchange(p.last)...)
	}
	if !st.clients.acceptedAny() {
		return st.depart("per-address registration limit (source 7.3, 8)",
			"a refusal after at least one accepted registration from this address",
			"the first registration was refused: "+describeOAuth(p.refusal), p.refusal.Exchange)
	}
	st.vars["registrations_before_refusal"] = strconv.Itoa(p.accepted)
	return nil
}

func lastExchange(r *oauthclient.Reply) []wire.Exchange {
	if r == nil {
		return nil
	}
	return []wire.Exchange{r.Exchange}
}

// registeredClientWorks checks source 7.3: a client that registered once
// keeps its client_id and it keeps working, here by starting a device
// authorization, even after the address was throttled.
func (st *sourceState) registeredClientWorks(ctx context.Context) error {
	id := st.clients.get()
	if id == "" {
		return fmt.Errorf("no client registered earlier in the run: the scenario must begin with a registered client")
	}
	st.flow.clientID = id
	r, err := st.OAuth.DeviceAuthorize(ctx, id, nil)
	if err := st.oauthReply(r, err, "device authorization ("+st.Target.Profile.OAuth.DeviceAuthorization+")"); err != nil {
		return err
	}
	// The throttle OAUTH-7 judges is the registration limit's; a client
	// whose device authorizations were throttled already before it (a
	// limit per client, RFC 8628 section 5.2, which a client kept across
	// runs may reach) shows nothing of it.
	if r.Throttled() && st.clients.deviceThrottledBefore() {
		return st.skip(fmt.Sprintf("the host throttled this client's device authorizations earlier in the run already (a limit per client, RFC 8628 section 5.2), "+
			"so its throttled device authorization now (HTTP %d, Retry-After %q) shows nothing of the registration throttle; run again once the limit has refilled",
			r.Status, r.Header.Get("Retry-After")))
	}
	if _, ok := r.String("device_code"); r.Status/100 != 2 || !ok {
		return st.depart("device authorization for the client registered before the limit",
			"a 2xx answer with a device_code: the client keeps its client_id (source 7.3)", describeOAuth(r), r.Exchange)
	}
	st.flow.deviceCode, _ = r.String("device_code")
	return nil
}
