package mcpclient

import (
	"encoding/json"
	"slices"
	"strings"
)

// Capabilities finds the "capabilities" list of strings in an afs_stat
// result: anywhere in its structured content, or in its text read as JSON.
// The source (section 1) says the list is there but does not show the shape.
func (tr *ToolResult) Capabilities() ([]string, bool) {
	for _, raw := range [][]byte{tr.Structured, []byte(tr.Text)} {
		var v any
		if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
			continue
		}
		if caps, ok := findCapabilities(v); ok {
			return caps, true
		}
	}
	return nil, false
}

// findCapabilities searches depth first, keys in order, so that the answer
// does not depend on map iteration.
func findCapabilities(v any) ([]string, bool) {
	switch t := v.(type) {
	case map[string]any:
		if list, ok := t["capabilities"].([]any); ok {
			caps := make([]string, 0, len(list))
			for _, c := range list {
				s, ok := c.(string)
				if !ok {
					return nil, false
				}
				caps = append(caps, s)
			}
			return caps, true
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if caps, ok := findCapabilities(t[k]); ok {
				return caps, true
			}
		}
	case []any:
		for _, e := range t {
			if caps, ok := findCapabilities(e); ok {
				return caps, true
			}
		}
	}
	return nil, false
}

// Names reports whether an afs_list result names the child name. The source
// does not show the listing's shape, so every string in the JSON (or every
// word of plain text) counts, whole or as a path's last segment.
func (tr *ToolResult) Names(name string) bool {
	match := func(s string) bool {
		s = strings.TrimRight(s, "/")
		return s == name || strings.HasSuffix(s, "/"+name)
	}
	parsed := false
	for _, raw := range [][]byte{tr.Structured, []byte(tr.Text)} {
		var v any
		if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
			continue
		}
		parsed = true
		if anyString(v, match) {
			return true
		}
	}
	if parsed {
		return false
	}
	words := strings.FieldsFunc(tr.Text, func(r rune) bool { return strings.ContainsRune(" \t\r\n,;:\"'()[]{}", r) })
	return slices.ContainsFunc(words, match)
}

func anyString(v any, match func(string) bool) bool {
	switch t := v.(type) {
	case string:
		return match(t)
	case map[string]any:
		for _, e := range t {
			if anyString(e, match) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if anyString(e, match) {
				return true
			}
		}
	}
	return false
}
