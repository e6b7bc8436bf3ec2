package oauth

import (
	"encoding/json"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("duplicateMember", func() {
	DescribeTable("names the first member named twice in one object, at any depth",
		func(doc, want string) {
			got, dup := duplicateMember([]byte(doc))
			Expect(dup).To(BeTrue())
			Expect(got).To(Equal(want))
		},
		Entry("at the top", `{"a":1,"a":2}`, "a"),
		Entry("in an object in an array", `{"x":{"a":[1,{"b":1,"b":2}]}}`, "b"),
		Entry("spelt with an escape", `{"\u0061":1,"a":2}`, "a"),
		Entry("after nested values", `{"a":[{"c":1}],"b":{"c":1},"a":0}`, "a"),
	)

	DescribeTable("accepts one name in different objects, and names used as values",
		func(doc string) {
			_, dup := duplicateMember([]byte(doc))
			Expect(dup).To(BeFalse())
		},
		Entry("sibling objects in an array", `[{"a":1},{"a":1}]`),
		Entry("an object nested under its own name", `{"a":{"a":1}}`),
		Entry("names as values", `{"a":"b","b":"a"}`),
		Entry("empty values", `{"a":[],"b":{}}`),
		Entry("not JSON, and no name twice before it breaks", `{"a":1,"b"`),
	)
})

// FuzzDuplicateMember holds the scanner to never panicking, whatever the
// input, and to never reporting a document re-encoded from what it decodes
// to, where every object holds each name once.
func FuzzDuplicateMember(f *testing.F) {
	for _, seed := range []string{
		`{"a":1,"a":2}`, `{"x":{"a":[1,{"b":1,"b":2}]}}`, `[{"a":1},{"a":1}]`, `{"a":{"a":1}}`,
		`{"a":"b","b":"a"}`, `{"":1,"":2}`, `{"\u0061":1,"a":2}`, `{`, `[1,2`, `"a"`, ``, `{"a":[],"b":{}}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		_, _ = duplicateMember([]byte(doc))
		var v any
		if err := json.Unmarshal([]byte(doc), &v); err != nil {
			return
		}
		again, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if n, dup := duplicateMember(again); dup {
			t.Fatalf("reported %q twice in %s, re-encoded from %q", n, again, doc)
		}
	})
}
