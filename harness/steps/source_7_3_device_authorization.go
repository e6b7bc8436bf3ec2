package steps

// The judgements of the answer to a device authorization request in the
// source document's flow (source 7.3, RFC 8628 section 3.2): the one a
// registered client must get, and the one a removed registration must.

// deviceAuthorizationSucceeds accepts what RFC 8628 section 3.2 requires for
// the flow to go on: a 2xx with a device_code and a user_code.
func (st *sourceState) deviceAuthorizationSucceeds() error {
	if err := st.needOAuth(); err != nil {
		return err
	}
	r := st.oauth
	if r.Throttled() {
		st.clients.throttledDevice(st.flow.clientID)
		return st.skipThrottled(r, "device authorization", "")
	}
	dc, okDC := r.String("device_code")
	uc, okUC := r.String("user_code")
	if r.Status/100 != 2 || !okDC || !okUC || dc == "" || uc == "" {
		return st.depart("device authorization for client "+st.flow.clientID,
			"a 2xx answer with device_code and user_code (RFC 8628 section 3.2)", describeOAuth(r), r.Exchange)
	}
	st.flow.deviceCode, st.flow.userCode = dc, uc
	st.vars["device_code"], st.vars["user_code"] = dc, uc
	return nil
}

// deviceAuthorizationRefused checks that a removed registration no longer
// starts a flow (source 3: "The client must then register again"). The
// refusal is not shown, so any 4xx counts, except a rate limit's: a
// throttle says nothing of whether the registration is still known, so it
// leaves the scenario not run, as deviceAuthorizationSucceeds does.
func (st *sourceState) deviceAuthorizationRefused() error {
	if err := st.needOAuth(); err != nil {
		return err
	}
	r := st.oauth
	if r.Throttled() {
		return st.skipThrottled(r, "device authorization", "")
	}
	if r.Status < 400 || r.Status > 499 {
		return st.depart("device authorization for a removed registration ("+st.flow.clientID+")",
			"a 4xx refusal: the registration was removed and the client must register again", describeOAuth(r), r.Exchange)
	}
	return nil
}
