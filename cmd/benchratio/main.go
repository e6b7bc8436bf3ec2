// Command benchratio reads `go test -bench` output on its standard input,
// copies it to its standard output, and then prints, for every group of
// benchmarks that holds a variant named "bare" (BenchmarkX/case/bare next to
// BenchmarkX/case/host), each variant's speed as a ratio to the bare one:
// the distance to what the machine can do, measured in the same run.
//
//	go test -run '^$' -bench . -benchmem ./... | go run ./cmd/benchratio
//
// It exits 1 when the input reports a failure, so a pipe in a Makefile
// still fails when a benchmark does.
package main

import (
	"fmt"
	"os"
)

func main() {
	failed, err := filter(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchratio:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}
