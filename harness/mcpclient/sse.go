package mcpclient

import (
	"bufio"
	"bytes"
	"io"
)

// readEvents reads a text/event-stream until an event carries the JSON-RPC
// response matching want, and returns it; nil if the stream ends first. The
// server may send its own requests and notifications before the response
// (MCP Transports, "Sending Messages to the Server"); they are passed
// over. Parsing follows the HTML standard's "Interpreting an event stream":
// data lines are joined by "\n", a blank line dispatches the event, comment
// lines and the other fields (event, id, retry) do not concern a response.
func readEvents(r io.Reader, want string) *Message {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxBody)
	sc.Split(scanEventLines)
	var data []byte
	first := true
	for sc.Scan() {
		line := sc.Bytes()
		if first {
			// The stream may begin with a byte order mark.
			line = bytes.TrimPrefix(line, []byte("\uFEFF"))
			first = false
		}
		switch {
		case len(line) == 0:
			if len(data) > 0 {
				if m := pick(data[:len(data)-1], want); m != nil {
					return m
				}
			}
			data = data[:0]
		case line[0] == ':':
			// A comment, often sent to keep the connection alive.
		default:
			field, value, _ := bytes.Cut(line, []byte(":"))
			if string(field) == "data" {
				data = append(data, bytes.TrimPrefix(value, []byte(" "))...)
				data = append(data, '\n')
			}
		}
	}
	return nil
}

// scanEventLines splits an event stream into lines; a line ends with CRLF,
// LF or a lone CR.
func scanEventLines(buf []byte, atEOF bool) (int, []byte, error) {
	i := bytes.IndexAny(buf, "\r\n")
	switch {
	case i < 0 && atEOF && len(buf) > 0:
		return len(buf), buf, nil
	case i < 0:
		return 0, nil, nil
	case buf[i] == '\n':
		return i + 1, buf[:i], nil
	case i+1 < len(buf) && buf[i+1] == '\n':
		return i + 2, buf[:i], nil
	case i+1 < len(buf) || atEOF:
		return i + 1, buf[:i], nil
	}
	// A CR at the end of what was read: the next byte may be its LF.
	return 0, nil, nil
}
