// Package content serves the host's content collections (source 1: "a host
// can declare content collections"): named directories of the agent file
// system whose files are the content items, behind search_content,
// list_content and get_content.
package content

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/conform-mcp/conform/impl/afs"
)

// Collection is one declared collection.
type Collection struct {
	// Name identifies the collection in tool calls.
	Name string
	// Path is the canonical directory whose files are the items.
	Path string
}

// Library reads collections through the agent file system, so the path
// policy applies to content as to any other read (source 5.7): declaring a
// collection does not open its path to network clients.
type Library struct {
	fs          *afs.FS
	collections []Collection
}

// NewLibrary returns the collections served from fsys.
func NewLibrary(fsys *afs.FS, collections []Collection) *Library {
	return &Library{fs: fsys, collections: slices.Clone(collections)}
}

// Names returns the collection names in declaration order.
func (l *Library) Names() []string {
	names := make([]string, 0, len(l.collections))
	for _, c := range l.collections {
		names = append(names, c.Name)
	}
	return names
}

// Item is one content item.
type Item struct {
	Collection string `json:"collection"`
	ID         string `json:"id"`
	Path       string `json:"path"`
	Size       int64  `json:"size"`
	// Truncated says that get_content returned only the first part of the
	// item: the host's read limit (issue 8 item 10).
	Truncated bool `json:"truncated,omitempty"`
}

// Hit is one search match in an item: its name (Line 0) or one of its lines.
type Hit struct {
	Collection string `json:"collection"`
	ID         string `json:"id"`
	Path       string `json:"path"`
	Line       int    `json:"line,omitempty"`
	Text       string `json:"text"`
}

// Error is a content failure that is not the file system's.
type Error struct {
	// Code is CONTENT_UNKNOWN_COLLECTION or CONTENT_NOT_FOUND.
	Code string
	// Text follows "CODE: ".
	Text string
}

// Error returns "CODE: text", the in-call error shape of source 7.4.
func (e *Error) Error() string { return e.Code + ": " + e.Text }

func unknownCollection(name string) *Error {
	return &Error{Code: "CONTENT_UNKNOWN_COLLECTION", Text: "Unknown collection: " + name}
}

func notFound(collection, id string) *Error {
	return &Error{Code: "CONTENT_NOT_FOUND", Text: fmt.Sprintf("Content not found: %s/%s", collection, id)}
}

// pick returns the named collection, or every collection for "".
func (l *Library) pick(name string) ([]Collection, error) {
	if name == "" {
		return l.collections, nil
	}
	for _, c := range l.collections {
		if c.Name == name {
			return []Collection{c}, nil
		}
	}
	return nil, unknownCollection(name)
}

func itemOf(c Collection, e afs.Entry) Item {
	id := strings.TrimPrefix(strings.TrimPrefix(e.Path, c.Path), "/")
	return Item{Collection: c.Name, ID: id, Path: e.Path, Size: e.Size}
}

// List returns the items of one collection, or of all for "".
func (l *Library) List(ctx context.Context, collection string) ([]Item, error) {
	cs, err := l.pick(collection)
	if err != nil {
		return nil, err
	}
	items := []Item{}
	for _, c := range cs {
		listing, err := l.fs.List(ctx, c.Path, afs.ListOptions{Depth: afs.MaxListDepth, Limit: afs.MaxListLimit})
		if err != nil {
			return nil, err
		}
		for _, e := range listing.Entries {
			if e.Kind == afs.KindFile {
				items = append(items, itemOf(c, e))
			}
		}
	}
	return items, nil
}

// Search returns the lines and names of items that contain query.
func (l *Library) Search(ctx context.Context, query, collection string) ([]Hit, error) {
	cs, err := l.pick(collection)
	if err != nil {
		return nil, err
	}
	hits := []Hit{}
	for _, c := range cs {
		res, err := l.fs.Search(ctx, c.Path, query, afs.DefaultSearchLimit)
		if err != nil {
			return nil, err
		}
		for _, m := range res.Matches {
			it := itemOf(c, afs.Entry{Path: m.Path})
			hits = append(hits, Hit{Collection: it.Collection, ID: it.ID, Path: it.Path, Line: m.Line, Text: m.Text})
		}
	}
	return hits, nil
}

// Get returns one item and its text, at most the host's read limit of it. The id is a path relative to the
// collection and is canonicalised like any path, so it cannot leave it.
func (l *Library) Get(ctx context.Context, collection, id string) (Item, string, error) {
	if collection == "" {
		return Item{}, "", unknownCollection(collection)
	}
	cs, err := l.pick(collection)
	if err != nil {
		return Item{}, "", err
	}
	c := cs[0]
	rel, err := afs.Canonical("/" + id)
	if err != nil || rel == "/" {
		return Item{}, "", notFound(c.Name, id)
	}
	chunk, err := l.fs.Read(ctx, c.Path+rel, 0, 0)
	if afs.CodeOf(err) == afs.CodeNotFound || afs.CodeOf(err) == afs.CodeIsDirectory {
		return Item{}, "", notFound(c.Name, id)
	}
	if err != nil {
		return Item{}, "", err
	}
	it := itemOf(c, chunk.Entry)
	it.Truncated = chunk.More
	return it, string(chunk.Data), nil
}
