package clientrun

import (
	"bytes"
	"sync"
)

// maxOutput bounds what is kept of each of a run's streams: its end, where
// a client says why it stopped.
const maxOutput = 64 << 10

// output keeps the end of what a client writes and hands each complete line
// to watch, which looks for authorization URLs the client prints.
type output struct {
	mu    sync.Mutex
	kept  []byte
	line  []byte
	watch func(string)
}

func newOutput(watch func(string)) *output { return &output{watch: watch} }

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	o.kept = append(o.kept, p...)
	if len(o.kept) > maxOutput {
		o.kept = o.kept[len(o.kept)-maxOutput:]
	}
	o.line = append(o.line, p...)
	var lines []string
	for {
		i := bytes.IndexByte(o.line, '\n')
		if i < 0 {
			break
		}
		lines = append(lines, string(o.line[:i]))
		o.line = o.line[i+1:]
	}
	if len(o.line) > maxOutput {
		o.line = o.line[len(o.line)-maxOutput:]
	}
	o.mu.Unlock()
	for _, l := range lines {
		o.watch(l)
	}
	return len(p), nil
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return string(o.kept)
}
