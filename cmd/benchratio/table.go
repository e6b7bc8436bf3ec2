package main

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// baseline is the variant every other variant of a group is compared with.
const baseline = "bare"

// measurement is one line of `go test -bench` output: the benchmark's name
// without the Benchmark prefix and the -GOMAXPROCS suffix, and each value
// by its unit (ns/op, B/op, allocs/op, or a unit the benchmark reported).
type measurement struct {
	name   string
	values map[string]float64
	units  []string
}

// group is the variants of one benchmark case, in the order they ran, each
// with every measurement of it (several with -count).
type group struct {
	name     string
	variants []string
	runs     map[string][]measurement
}

var procsSuffix = regexp.MustCompile(`-\d+$`)

// filter copies in to out, then writes the ratio table of what it read.
// failed reports whether the input tells of a failed test or benchmark.
func filter(in io.Reader, out io.Writer) (failed bool, err error) {
	var all []measurement
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		text := sc.Text()
		if _, err := fmt.Fprintln(out, text); err != nil {
			return false, err
		}
		trimmed := strings.TrimSpace(text)
		if strings.HasPrefix(trimmed, "FAIL") || strings.HasPrefix(trimmed, "--- FAIL") || strings.HasPrefix(trimmed, "panic:") {
			failed = true
		}
		if m, ok := parse(text); ok {
			all = append(all, m)
		}
	}
	if err := sc.Err(); err != nil {
		return failed, fmt.Errorf("read: %w", err)
	}
	return failed, writeTable(out, groups(all))
}

// parse reads a result line: "BenchmarkName-2  1000  1234 ns/op  56 B/op ...".
func parse(line string) (measurement, bool) {
	fields := strings.Fields(line)
	if len(fields) < 4 || len(fields)%2 != 0 || !strings.HasPrefix(fields[0], "Benchmark") {
		return measurement{}, false
	}
	if _, err := strconv.ParseInt(fields[1], 10, 64); err != nil {
		return measurement{}, false
	}
	m := measurement{
		name:   procsSuffix.ReplaceAllString(strings.TrimPrefix(fields[0], "Benchmark"), ""),
		values: map[string]float64{},
	}
	for i := 2; i < len(fields); i += 2 {
		v, err := strconv.ParseFloat(fields[i], 64)
		if err != nil {
			return measurement{}, false
		}
		m.values[fields[i+1]] = v
		m.units = append(m.units, fields[i+1])
	}
	return m, true
}

// groups gathers the measurements whose case (the name up to its last
// slash) has a bare variant.
func groups(all []measurement) []*group {
	var out []*group
	byName := map[string]*group{}
	for _, m := range all {
		i := strings.LastIndex(m.name, "/")
		if i < 0 {
			continue
		}
		name, variant := m.name[:i], m.name[i+1:]
		g := byName[name]
		if g == nil {
			g = &group{name: name, runs: map[string][]measurement{}}
			byName[name] = g
			out = append(out, g)
		}
		if _, seen := g.runs[variant]; !seen {
			g.variants = append(g.variants, variant)
		}
		g.runs[variant] = append(g.runs[variant], m)
	}
	return slices.DeleteFunc(out, func(g *group) bool { return g.runs[baseline] == nil })
}

// median is the middle value of unit over runs, so one run disturbed by
// other work on the machine does not move the ratio.
func median(runs []measurement, unit string) (float64, bool) {
	var vs []float64
	for _, m := range runs {
		if v, ok := m.values[unit]; ok {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return 0, false
	}
	slices.Sort(vs)
	if len(vs)%2 == 1 {
		return vs[len(vs)/2], true
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2, true
}

// isTime reports whether unit is a time per operation, which a ratio to bare
// turns into a ratio of operations per second.
func isTime(unit string) bool { return strings.HasSuffix(unit, "ns/op") }

// writeTable prints each group's variants with, for every time unit, the
// value and bare's value divided by it: 1.00x is the bare handler's speed,
// 0.25x a quarter of it. Groups that report the same units share a header.
func writeTable(out io.Writer, gs []*group) error {
	if len(gs) == 0 {
		return nil
	}
	if _, err := fmt.Fprintf(out, "\nratio to %s (operations per second; %s = 1.00x)\n", baseline, baseline); err != nil {
		return err
	}
	var tw *tabwriter.Writer
	var units []string
	for _, g := range gs {
		if gu := g.units(); tw == nil || !slices.Equal(gu, units) {
			if tw != nil {
				if err := tw.Flush(); err != nil {
					return err
				}
				fmt.Fprintln(out)
			}
			units = gu
			tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
			header := []string{"benchmark", "variant"}
			for _, u := range units {
				header = append(header, u)
				if isTime(u) {
					header = append(header, "ratio")
				}
			}
			fmt.Fprintln(tw, strings.Join(header, "\t"))
		}
		for i, v := range g.variants {
			name := ""
			if i == 0 {
				name = g.name
			}
			fmt.Fprintln(tw, strings.Join(append([]string{name, v}, g.cells(v, units)...), "\t"))
		}
	}
	return tw.Flush()
}

// units are the units any run of the group reports, in column order.
func (g *group) units() []string {
	var units []string
	for _, v := range g.variants {
		for _, m := range g.runs[v] {
			for _, u := range m.units {
				if !slices.Contains(units, u) {
					units = append(units, u)
				}
			}
		}
	}
	slices.SortStableFunc(units, func(a, b string) int { return unitRank(a) - unitRank(b) })
	return units
}

// cells are variant's median for each unit, each time followed by its ratio.
func (g *group) cells(variant string, units []string) []string {
	var row []string
	for _, u := range units {
		value, ok := median(g.runs[variant], u)
		base, baseOK := median(g.runs[baseline], u)
		if ok {
			row = append(row, strconv.FormatFloat(value, 'f', -1, 64))
		} else {
			row = append(row, "-")
		}
		if !isTime(u) {
			continue
		}
		if ok && baseOK && value > 0 {
			row = append(row, fmt.Sprintf("%.2fx", base/value))
		} else {
			row = append(row, "-")
		}
	}
	return row
}

// unitRank orders the columns: go test's own units first, in its order, then
// the ones benchmarks report.
func unitRank(unit string) int {
	switch unit {
	case "ns/op":
		return 0
	case "B/op":
		return 2
	case "allocs/op":
		return 3
	}
	if isTime(unit) {
		return 1
	}
	return 4
}
