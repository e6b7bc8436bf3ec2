package scripted

import (
	"fmt"
	"net"
	"net/http/httptest"
	"sync"
)

// used are the loopback ports scripted servers of this process have had.
var used = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// listen opens a loopback listener on a port no scripted server of this
// process had before. A client keeps what it learns by URL in a state
// directory that lasts the whole run; a port handed out again would make a
// later scenario's server look like an earlier one restarted, with the
// earlier one's tokens and client IDs still kept for it.
func listen() (net.Listener, error) {
	used.Lock()
	defer used.Unlock()
	var refused []net.Listener
	defer func() {
		for _, l := range refused {
			_ = l.Close()
		}
	}()
	for range 100 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("listen for a scripted server: %w", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		if !used.ports[port] {
			used.ports[port] = true
			return l, nil
		}
		refused = append(refused, l)
	}
	return nil, fmt.Errorf("listen for a scripted server: no loopback port left that no earlier server had")
}

// start starts s on a fresh port (listen).
func start(s *httptest.Server) error {
	l, err := listen()
	if err != nil {
		return err
	}
	_ = s.Listener.Close()
	s.Listener = l
	s.Start()
	return nil
}
