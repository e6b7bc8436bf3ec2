package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"sync"
	"sync/atomic"
)

// A registration is the one record an anonymous client can make the host
// keep, and a bbolt commit rewrites at least a leaf, the pages above it,
// the freelist and the meta page: 37 KB of disk writes for one
// registration (issue 26 item 4). New registrations are therefore appended
// to a journal beside the data file, one JSON line each, synced before the
// registration is answered (about one 4 KB page of writes), and folded into
// the data file in one commit later: when the journal holds
// journalFoldAt registrations, when a transaction lists or deletes clients
// (the sweep), and at the next Open, which is how a crash loses none.
//
// Readers see a journalled registration as if it were in the data file
// (Tx.Client, Tx.Clients). A record in the data file wins over the journal's
// copy of it: it is the newer one (a client marked used).
type journal struct {
	// mu orders appends with folds: it is held for every appended line and
	// across every read-write transaction, which may fold.
	mu     sync.Mutex
	f      *os.File
	noSync bool
	// pending are the journalled registrations not yet folded. The map a
	// pointer leads to is never changed: an appender publishes a new one.
	// A reader loads it before its transaction begins, and a fold empties
	// it only after its commit, so every reader finds each registration in
	// the map it loaded or in the data file its transaction reads.
	pending atomic.Pointer[map[string]Client]
}

// journalFoldAt is how many registrations the journal holds before they
// are folded into the data file: one commit for many keeps the writes per
// registration near one line, and the map a reader copies small.
const journalFoldAt = 256

// journalLimit is the most registrations the journal holds while folds
// fail (ErrFoldDeferred): past it a registration is refused before it is
// journalled, so that a data file that keeps refusing them never lets the
// journal, and the map every append copies, grow without end.
const journalLimit = 4 * journalFoldAt

// openJournal opens (creating, mode 0600) the journal at path and reads the
// registrations it holds. A line cut short by a crash was never answered:
// reading stops there.
func openJournal(path string, noSync bool) (*journal, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open registration journal: %w", err)
	}
	j := &journal{f: f, noSync: noSync}
	pending := map[string]Client{}
	r := bufio.NewReader(f)
	var whole int64
	for {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("read registration journal: %w", err)
		}
		var c Client
		if json.Unmarshal(bytes.TrimSpace(line), &c) != nil || c.ID == "" {
			break
		}
		pending[c.ID] = c
		whole += int64(len(line))
	}
	// Lines appended later must not follow a cut one, which would hide them.
	if fi, err := f.Stat(); err != nil || fi.Size() != whole {
		if err == nil {
			err = f.Truncate(whole)
		}
		if err != nil {
			_ = f.Close()
			return nil, fmt.Errorf("read registration journal: %w", err)
		}
	}
	j.pending.Store(&pending)
	return j, nil
}

// snapshot is the pending registrations as of now.
func (j *journal) snapshot() map[string]Client { return *j.pending.Load() }

// append writes c to the journal and syncs it. j.mu must be held.
func (j *journal) append(c Client) error {
	line, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("encode registration: %w", err)
	}
	// A write or sync that fails (a full disk) is cut off again, so the
	// next registration does not run into its half line and the next Open
	// does not stop there, dropping every registration after it.
	fi, err := j.f.Stat()
	if err != nil {
		return fmt.Errorf("append registration: %w", err)
	}
	_, err = j.f.Write(append(line, '\n'))
	if err == nil && !j.noSync {
		err = j.f.Sync()
	}
	if err != nil {
		if terr := j.f.Truncate(fi.Size()); terr != nil {
			return fmt.Errorf("append registration: %w (and the journal could not be cut back: %v)", err, terr)
		}
		return fmt.Errorf("append registration: %w", err)
	}
	next := maps.Clone(j.snapshot())
	next[c.ID] = c
	j.pending.Store(&next)
	return nil
}

// folded empties the journal once its registrations are committed to the
// data file. j.mu must be held. Should the truncation not reach the disk
// before a crash, the next Open folds the same registrations again, which
// changes nothing that a record in the data file already says.
func (j *journal) folded() error {
	empty := map[string]Client{}
	j.pending.Store(&empty)
	if err := j.f.Truncate(0); err != nil {
		return fmt.Errorf("empty registration journal: %w", err)
	}
	return nil
}

// ErrFoldDeferred is wrapped by Register's error when the registration was
// journalled and the fold that followed failed: the client is registered
// (its line is synced, and every transaction reads it from the journal),
// the journal keeps it, and the next fold tries again. The caller answers
// the registration as made: a client refused there would register again,
// and the first registration, which stands, would never be handed out.
var ErrFoldDeferred = errors.New("registration kept in the journal; folding the journal into the data file failed and is tried again at the next fold")

// Register stores a new client registration in the journal, synced to the
// disk before it returns, without a commit of the data file. An error that
// wraps ErrFoldDeferred leaves the registration made.
func (s *Store) Register(c Client) error {
	s.journal.mu.Lock()
	defer s.journal.mu.Unlock()
	if n := len(s.journal.snapshot()); n >= journalLimit {
		if err := s.update(func(t *Tx) error { return t.fold() }); err != nil {
			return fmt.Errorf("register: the journal holds %d registrations the data file has not taken: %w", n, err)
		}
	}
	if err := s.journal.append(c); err != nil {
		return err
	}
	if len(s.journal.snapshot()) < journalFoldAt {
		return nil
	}
	if err := s.update(func(t *Tx) error { return t.fold() }); err != nil {
		return fmt.Errorf("%w: %w", ErrFoldDeferred, err)
	}
	return nil
}

// fold puts every journalled registration the data file lacks into it, in
// this transaction; once it commits, the journal is emptied.
func (t *Tx) fold() error {
	if len(t.pending) == 0 {
		return nil
	}
	for id, c := range t.pending {
		if t.tx.Bucket(bucketClients).Get([]byte(id)) != nil {
			continue
		}
		if err := t.put(bucketClients, []byte(id), c); err != nil {
			return err
		}
	}
	t.pending, t.folded = nil, true
	return nil
}
