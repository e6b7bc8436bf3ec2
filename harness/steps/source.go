package steps

// sourceState is one scenario's state in the source pack: the core state,
// and what the source document's steps keep besides.
type sourceState struct {
	*State
	// flow is the scenario's progress through registration and the device grant.
	flow oauthFlow
	// called is the tool of the last tools/call ("" when the last request
	// was something else) and calledAs the caller's Authorization value.
	called, calledAs string
	// exists remembers the tools known to exist, by caller (toolExists).
	exists map[string]bool
}

// sourceSteps binds the source document's own steps.
func sourceSteps(core *State, sc stepContext) {
	st := &sourceState{State: core, exists: map[string]bool{}}
	core.moreSecrets = st.flow.secrets
	st.registerService(sc)
	st.registerTime(sc)
	st.registerKept(sc)
	st.registerEndpoints(sc)
	st.registerAuthentication(sc)
	st.registerAuthorizationFlow(sc)
	st.registerDiagnose(sc)
	st.registerLimits(sc)
}
