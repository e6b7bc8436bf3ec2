package afs_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/conform-mcp/conform/impl/afs"
)

// diskWith returns an overlay FS over a disk directory holding n files.
func diskWith(b *testing.B, n int) *afs.FS {
	b.Helper()
	dir := b.TempDir()
	for i := range n {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file-%05d.txt", i)), []byte("x"), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	// A directory not changed in the last seconds, as a large one mostly
	// is: the provider trusts what it read of it before.
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(dir, old, old); err != nil {
		b.Fatal(err)
	}
	disk, err := afs.NewDisk(dir)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = disk.Close() })
	fsys, err := afs.New([]afs.Mount{{Path: "/overlay", Provider: disk, Overlay: true}}, nil, afs.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	return fsys
}

// BenchmarkListLimit10 lists the first 10 entries of a directory of 10,000
// files and of a directory of 10 files, interleaved in one loop so that both
// meet the same machine, and reports the first's cost as a multiple of the
// second's (issue: a listing costs what it returns). ns/op is the pair.
func BenchmarkListLimit10(b *testing.B) {
	ctx := context.Background()
	large, small := diskWith(b, 10000), diskWith(b, 10)
	opts := afs.ListOptions{Limit: 10}
	var inLarge, inSmall time.Duration
	for b.Loop() {
		start := time.Now()
		l, err := large.List(ctx, "/overlay", opts)
		mid := time.Now()
		s, err2 := small.List(ctx, "/overlay", opts)
		inSmall += time.Since(mid)
		inLarge += mid.Sub(start)
		if err != nil || err2 != nil || len(l.Entries) != 10 || len(s.Entries) != 10 || !l.Truncated || s.Truncated {
			b.Fatalf("large %d entries (%v), small %d (%v)", len(l.Entries), err, len(s.Entries), err2)
		}
	}
	b.ReportMetric(float64(inLarge)/float64(inSmall), "large/small")
	b.ReportMetric(float64(inLarge.Nanoseconds())/float64(b.N), "ns-large/op")
	b.ReportMetric(float64(inSmall.Nanoseconds())/float64(b.N), "ns-small/op")
}
