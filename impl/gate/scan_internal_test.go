package gate

import (
	"bytes"
	"encoding/json"
	"maps"
	"testing"
)

// decodedFields is objectFields done with encoding/json's tokenizer: the
// reference the one-pass walk must agree with.
func decodedFields(raw []byte) (fields map[string]json.RawMessage, isObject, dup bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false, false
	}
	fields = map[string]json.RawMessage{}
	for dec.More() {
		tok, _ := dec.Token()
		key := tok.(string)
		var value json.RawMessage
		_ = dec.Decode(&value)
		if _, seen := fields[key]; seen {
			dup = true
		}
		fields[key] = value
	}
	return fields, true, dup
}

// FuzzObjectFields holds the walk over a validated body to what a JSON
// decoder reads: the same members with the same bytes, keys compared as
// decoded, and a key given twice always found.
func FuzzObjectFields(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"afs_read","arguments":{"path":"/a"}}}`,
		` { "a" : [1, {"b": "}"}, "\"]"] , "c":null,"d":-1.5e3 } `,
		`{"\u006dethod":"x","method":"y"}`,
		`{"a\ud800":1,"a\ufffd":2}`,
		`{"k":"\\"}`, `{}`, `[]`, `"s"`, `12`, `true`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return
		}
		want, wantObject, wantDup := decodedFields(raw)
		got, isObject, err := objectFields(raw)
		switch {
		case wantDup:
			if err == nil {
				t.Fatalf("missed a duplicate key in %q", raw)
			}
		case err != nil:
			t.Fatalf("refused %q: %v", raw, err)
		case isObject != wantObject:
			t.Fatalf("object %v, want %v, for %q", isObject, wantObject, raw)
		case !maps.EqualFunc(got, want, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }):
			t.Fatalf("fields %q, want %q", got, want)
		}
	})
}

// FuzzArrayEntries holds the walk to encoding/json's reading of an array.
func FuzzArrayEntries(f *testing.F) {
	for _, seed := range []string{`[]`, `[ 1 , "a,]" , {"b":[2,3]}, [], null ]`, `[{"x":"\"["}]`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		raw = bytes.TrimLeft(raw, " \t\r\n")
		var want []json.RawMessage
		if !json.Valid(raw) || json.Unmarshal(raw, &want) != nil {
			return
		}
		got, ok := arrayEntries(raw, len(raw))
		if !ok {
			t.Fatalf("refused %q with a limit above its entries", raw)
		}
		if len(got) != len(want) {
			t.Fatalf("%d entries, want %d, in %q", len(got), len(want), raw)
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("entry %d is %q, want %q", i, got[i], want[i])
			}
		}
		if _, ok := arrayEntries(raw, 2); ok != (len(want) <= 2) {
			t.Fatalf("with a limit of 2, ok is %v for %d entries in %q", ok, len(want), raw)
		}
	})
}
