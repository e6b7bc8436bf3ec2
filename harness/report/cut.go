package report

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/conform-mcp/conform/harness/wire"
)

// Bodies shown at a terminal (pretty and progress) are cut to their
// beginning and their end: a host that fails many scenarios would otherwise
// reprint its whole tools/list reply under each one, hundreds of kilobytes
// in which the check, expected and actual lines are lost. The end is kept
// because that is where a JSON-RPC request has its arguments and an error
// its message. A body of up to cutFrom bytes and cutLinesFrom lines is shown
// whole. The HTML, JUnit, Cucumber and JSON reports keep every exchange as
// it was recorded.
const (
	cutFrom      = 512
	cutLinesFrom = 12
	headBytes    = 240
	tailBytes    = 100
	headLines    = 6
	tailLines    = 2
)

// bodies says how much of each exchange body a format shows.
type bodies int

const (
	wholeBodies bodies = iota
	cutBodies
)

// cutExchange returns ex with both bodies cut for a terminal.
func cutExchange(ex wire.Exchange) wire.Exchange {
	var cut bool
	ex.RequestBody, _ = cutBody(ex.RequestBody)
	if ex.ResponseBody, cut = cutBody(ex.ResponseBody); cut {
		// The note that the recording itself was trimmed says less than
		// the cut's own note, which counts the bytes.
		ex.ResponseTrimmed = false
	}
	return ex
}

// cutBody keeps the beginning and the end of a long body, each ending on a
// whole UTF-8 character, and says on a line between them how much was left
// out and where it is. It reports whether it cut anything.
func cutBody(s string) (string, bool) {
	s = strings.TrimRight(s, "\r\n")
	lines := strings.Split(s, "\n")
	if len(s) <= cutFrom && len(lines) <= cutLinesFrom {
		return s, false
	}
	head, tail := s, s
	if len(lines) > cutLinesFrom {
		head = strings.Join(lines[:headLines], "\n")
		tail = strings.Join(lines[len(lines)-tailLines:], "\n")
	}
	head, tail = prefix(head, headBytes), suffix(tail, tailBytes)
	left := len(s) - len(head) - len(tail)
	return fmt.Sprintf("%s\n… %d bytes left out here; the html, json and junit reports have the whole exchange …\n%s",
		head, left, tail), true
}

// prefix is at most n bytes from the start of s, ending before a character.
func prefix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// suffix is at most n bytes from the end of s, starting on a character.
func suffix(s string, n int) string {
	if len(s) <= n {
		return s
	}
	start := len(s) - n
	for start < len(s) && !utf8.RuneStart(s[start]) {
		start++
	}
	return s[start:]
}
