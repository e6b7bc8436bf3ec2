package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// args decodes a tool's arguments field by field, so that a wrong type or a
// missing field becomes a sentence naming the field rather than a decoder's
// message or a panic. The first problem wins.
type args struct {
	fields map[string]json.RawMessage
	err    error
}

// parseArgs reads raw as a JSON object whose keys are all in known.
func parseArgs(raw json.RawMessage, known ...string) *args {
	a := &args{fields: map[string]json.RawMessage{}}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return a
	}
	if err := json.Unmarshal(raw, &a.fields); err != nil {
		a.err = fmt.Errorf("arguments must be a JSON object")
		return a
	}
	var unknown []string
	for k := range a.fields {
		if !slices.Contains(known, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		a.err = fmt.Errorf("unknown argument %s (known: %s)", strings.Join(unknown, ", "), strings.Join(known, ", "))
	}
	return a
}

func (a *args) present(name string) (json.RawMessage, bool) {
	raw, ok := a.fields[name]
	if !ok || string(raw) == "null" {
		return nil, false
	}
	return raw, true
}

// str returns a string argument; required ones must be non-empty.
func (a *args) str(name string, required bool) string {
	if a.err != nil {
		return ""
	}
	raw, ok := a.present(name)
	if !ok {
		if required {
			a.err = fmt.Errorf("%s is required", name)
		}
		return ""
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		a.err = fmt.Errorf("%s must be a string", name)
		return ""
	}
	if required && s == "" {
		a.err = fmt.Errorf("%s must not be empty", name)
	}
	return s
}

// integer returns an optional integer argument within [min, max], or def.
func (a *args) integer(name string, def, min, max int) int {
	if a.err != nil {
		return def
	}
	raw, ok := a.present(name)
	if !ok {
		return def
	}
	var n int
	if err := json.Unmarshal(raw, &n); err != nil {
		a.err = fmt.Errorf("%s must be an integer", name)
		return def
	}
	if n < min || n > max {
		a.err = fmt.Errorf("%s must be between %d and %d", name, min, max)
		return def
	}
	return n
}

// strs returns an optional array of strings.
func (a *args) strs(name string) []string {
	if a.err != nil {
		return nil
	}
	raw, ok := a.present(name)
	if !ok {
		return nil
	}
	var out []string
	if err := json.Unmarshal(raw, &out); err != nil {
		a.err = fmt.Errorf("%s must be an array of strings", name)
		return nil
	}
	return out
}

// oneOf returns an optional string argument that must be one of choices, or
// the first choice when absent.
func (a *args) oneOf(name string, choices ...string) string {
	s := a.str(name, false)
	if a.err != nil || s == "" {
		return choices[0]
	}
	if !slices.Contains(choices, s) {
		a.err = fmt.Errorf("%s must be one of %s", name, strings.Join(choices, ", "))
	}
	return s
}
