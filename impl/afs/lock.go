package afs

import "sync"

// pathLocks gives each name its own mutex, held only while someone wants
// it, so that writers of one file take turns and writers of different files
// never wait for each other.
type pathLocks struct {
	mu   sync.Mutex
	held map[string]*pathLock
}

type pathLock struct {
	sync.Mutex
	waiters int
}

// lock takes name's lock and returns its release.
func (l *pathLocks) lock(name string) func() {
	l.mu.Lock()
	if l.held == nil {
		l.held = map[string]*pathLock{}
	}
	pl := l.held[name]
	if pl == nil {
		pl = &pathLock{}
		l.held[name] = pl
	}
	pl.waiters++
	l.mu.Unlock()
	pl.Lock()
	return func() {
		pl.Unlock()
		l.mu.Lock()
		if pl.waiters--; pl.waiters == 0 {
			delete(l.held, name)
		}
		l.mu.Unlock()
	}
}
