package report

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/conform-mcp/conform/harness/wire"
)

// Bodies shown at a terminal (pretty and progress) are cut to their first
// few lines and bytes: a host that fails many scenarios would otherwise
// reprint its whole tools/list reply under each one, hundreds of kilobytes
// in which the check, expected and actual lines are lost. The HTML, JUnit,
// Cucumber and JSON reports keep every exchange as it was recorded.
const (
	cutBytes = 300
	cutLines = 8
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

// cutBody keeps the first cutLines lines and at most cutBytes bytes of s,
// ending on a whole UTF-8 character, and says on a line of its own how much
// was kept and where the rest is. It reports whether it cut anything.
func cutBody(s string) (string, bool) {
	kept := s
	if lines := strings.SplitAfterN(kept, "\n", cutLines+1); len(lines) > cutLines {
		kept = strings.Join(lines[:cutLines], "")
	}
	if len(kept) > cutBytes {
		end := cutBytes
		for end > 0 && !utf8.RuneStart(kept[end]) {
			end--
		}
		kept = kept[:end]
	}
	if len(kept) == len(s) {
		return s, false
	}
	return fmt.Sprintf("%s …\n(%d of %d bytes shown; the html, json and junit reports have the whole exchange)",
		strings.TrimRight(kept, "\r\n"), len(kept), len(s)), true
}
