package oauth

import (
	"bytes"
	"encoding/json"
)

// duplicateMember returns the first member name that appears twice in one
// object of the JSON document doc, at any depth, and false when none does.
// RFC 8259 section 4 leaves the meaning of such an object to each parser
// ("the names within an object SHOULD be unique"): Go keeps the last value,
// others the first, so a registration a front end read one way would be
// stored another. A document that is not JSON is read up to where it breaks;
// callers refuse it anyway.
func duplicateMember(doc []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	// Each open value on the stack: the member names seen so far for an
	// object, nil for an array.
	var stack []map[string]bool
	// expectName is true where the next string of an object is a name.
	expectName := false
	for {
		tok, err := dec.Token()
		if err != nil { // the end, or not JSON
			return "", false
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, map[string]bool{})
				expectName = true
				continue
			case '[':
				stack = append(stack, nil)
			default:
				stack = stack[:len(stack)-1]
			}
		case string:
			if expectName {
				names := stack[len(stack)-1]
				if names[t] {
					return t, true
				}
				names[t] = true
				expectName = false
				continue
			}
		}
		// A value ended (or an array opened): inside an object the next
		// token is a name again.
		expectName = len(stack) > 0 && stack[len(stack)-1] != nil
	}
}
