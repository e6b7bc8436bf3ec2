package fakehost

// RevokeIssued makes every credential the device grant has issued so far
// stop working, as a host whose owner revoked them would: the client half
// of the source pack checks that a client then signs in again (source 5.8,
// "When a credential stops working, the client signs in again").
func (h *Host) RevokeIssued() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for tok := range h.issued {
		h.issued[tok] = func() bool { return false }
	}
}
