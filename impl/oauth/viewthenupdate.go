package oauth

import "github.com/conform-mcp/conform/impl/store"

// viewThenUpdate runs decide in a read-only transaction first and, only when
// it says the answer needs a change, again in a read-write one. Most token
// requests a stranger can send (a code never issued, expired, another
// client's, denied) change nothing, and a read-write transaction costs a
// page write and an fsync: anonymous requests must not turn into disk
// writes. decide runs from scratch each time, since the record may have
// changed between the two transactions; with write false it must not write,
// and it returns whether it answered.
func (s *Server) viewThenUpdate(decide func(tx *store.Tx, write bool) (answered bool, err error)) error {
	var answered bool
	err := s.store.View(func(tx *store.Tx) error {
		var err error
		answered, err = decide(tx, false)
		return err
	})
	if err != nil || answered {
		return err
	}
	return s.store.Update(func(tx *store.Tx) error {
		_, err := decide(tx, true)
		return err
	})
}
