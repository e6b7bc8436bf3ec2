package profile

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// checkKeys walks a profile document against Profile's keys before it is
// decoded, so that a mistyped key is told as the user wrote it: the whole
// key (oauth.regster, not "field regster in type OAuth"), its line, and the
// known key closest to it. It returns, too, the key each value's line
// belongs to, so that a type error can name its key.
func checkKeys(doc *yaml.Node) (map[int]string, error) {
	w := keyWalker{lines: map[int]string{}}
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		w.walk(doc.Content[0], reflect.TypeFor[Profile](), "")
	}
	return w.lines, errors.Join(w.errs...)
}

type keyWalker struct {
	lines map[int]string
	errs  []error
}

var unmarshaler = reflect.TypeFor[yaml.Unmarshaler]()

func (w *keyWalker) walk(n *yaml.Node, t reflect.Type, path string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if path != "" {
		w.lines[n.Line] = path
	}
	// A type that reads itself (a request with free-form params) has keys
	// of its own choosing.
	if reflect.PointerTo(t).Implements(unmarshaler) {
		return
	}
	switch {
	case t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode:
		fields := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, value := n.Content[i], n.Content[i+1]
			if key.Tag == "!!merge" {
				// "<<: *anchor" (or a list of them) merges another
				// mapping's keys into this one: they are this type's keys.
				w.merge(value, t, path)
				continue
			}
			full := join(path, key.Value)
			f, ok := fields[key.Value]
			if !ok {
				w.errs = append(w.errs, unknownKey(key, full, path, fields))
				continue
			}
			w.walk(value, f, full)
		}
	case (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) && n.Kind == yaml.SequenceNode:
		for i, item := range n.Content {
			w.walk(item, t.Elem(), path+"["+strconv.Itoa(i)+"]")
		}
	case t.Kind() == reflect.Map && n.Kind == yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			w.walk(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value))
		}
	}
}

// merge walks the mappings a merge key brings in as keys of t.
func (w *keyWalker) merge(value *yaml.Node, t reflect.Type, path string) {
	if value.Kind == yaml.SequenceNode {
		for _, item := range value.Content {
			w.walk(item, t, path)
		}
		return
	}
	w.walk(value, t, path)
}

// yamlFields maps a struct's YAML keys to their types.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	fields := map[string]reflect.Type{}
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		fields[name] = f.Type
	}
	return fields
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func unknownKey(key *yaml.Node, full, parent string, fields map[string]reflect.Type) error {
	msg := fmt.Sprintf("profile line %d: unknown key %s", key.Line, full)
	if near := closest(key.Value, fields); near != "" {
		msg += fmt.Sprintf("; did you mean %s?", join(parent, near))
	}
	return errors.New(msg)
}

// closest is the known key nearest to name by edit distance, when it is
// near enough to be a slip (at most a third of the name's length, at least
// 2 edits); "" otherwise.
func closest(name string, fields map[string]reflect.Type) string {
	best, bestDist := "", max(len(name)/3, 2)+1
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if d := distance(name, k); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

var typeErrorLine = regexp.MustCompile(`^line (\d+): (.*)$`)

// typeErrors rewrites the decoder's type errors to name the key whose
// value did not fit ("profile line 2: slow: cannot unmarshal !!str `maybe`
// into bool").
func typeErrors(err error, lines map[int]string) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return fmt.Errorf("profile: %w", err)
	}
	var errs []error
	for _, e := range te.Errors {
		m := typeErrorLine.FindStringSubmatch(e)
		if m == nil {
			errs = append(errs, fmt.Errorf("profile: %s", e))
			continue
		}
		line, _ := strconv.Atoi(m[1])
		if key, ok := lines[line]; ok {
			errs = append(errs, fmt.Errorf("profile line %d: %s: %s", line, key, m[2]))
		} else {
			errs = append(errs, fmt.Errorf("profile line %d: %s", line, m[2]))
		}
	}
	return errors.Join(errs...)
}
