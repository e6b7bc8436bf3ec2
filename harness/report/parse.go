package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/conform-mcp/conform/harness/outcome"
)

// Output is one report the run writes: its format name, the file it goes to
// ("" for standard output), and the Writer that renders it.
type Output struct {
	Name   string
	Path   string
	Writer Writer
}

// formatsHelp is named in every error so that a mistyped --format says what
// would have worked (PRODUCT.md section 3).
const formatsHelp = "pretty, progress, junit:FILE, cucumber:FILE, html:FILE or json:FILE"

// Parse parses a --format value: comma-separated "pretty", "progress",
// "junit:FILE", "cucumber:FILE", "html:FILE", "json:FILE". An empty value means pretty.
// pretty and progress go to stdout; the others to their FILE. An unknown or
// malformed entry, or two entries writing the same file or the same format
// to stdout, is an error naming it.
//
// pretty and progress together share standard output without interleaving:
// progress shows its marks while the run goes on and ends their line, and
// pretty then writes the one report, whatever order they were given in.
func Parse(spec string, stdout io.Writer, color bool) ([]Output, error) {
	if strings.TrimSpace(spec) == "" {
		return []Output{{Name: "pretty", Writer: Pretty{Color: color}}}, nil
	}
	var outputs []Output
	files := map[string]string{}
	for _, entry := range strings.Split(spec, ",") {
		entry = strings.TrimSpace(entry)
		name, path, hasPath := strings.Cut(entry, ":")
		var o Output
		switch name {
		case "":
			return nil, fmt.Errorf("--format %q has an empty entry; formats are %s", spec, formatsHelp)
		case "pretty", "progress":
			if hasPath {
				return nil, fmt.Errorf("--format entry %q: %s writes to standard output and takes no file", entry, name)
			}
			if slices.ContainsFunc(outputs, func(o Output) bool { return o.Name == name }) {
				return nil, fmt.Errorf("--format %q names %s twice", spec, name)
			}
			o = Output{Name: name, Writer: Pretty{Color: color}}
			if name == "progress" {
				o.Writer = NewProgress(stdout, color)
			}
		case "junit", "cucumber", "html", "json":
			if path == "" {
				return nil, fmt.Errorf("--format entry %q: %s needs a file, as in %s:FILE", entry, name, name)
			}
			if other, dup := files[filepath.Clean(path)]; dup {
				return nil, fmt.Errorf("--format entry %q: %s already writes %s", entry, other, path)
			}
			files[filepath.Clean(path)] = name
			o = Output{Name: name, Path: path}
			switch name {
			case "junit":
				o.Writer = JUnit{}
			case "cucumber":
				o.Writer = Cucumber{}
			case "json":
				o.Writer = JSON{}
			default:
				o.Writer = HTML{}
			}
		default:
			return nil, fmt.Errorf("--format entry %q: unknown format %q; formats are %s", entry, name, formatsHelp)
		}
		outputs = append(outputs, o)
	}
	return shareStdout(outputs), nil
}

// shareStdout puts progress before pretty when both are chosen, and leaves
// the details and the summary to pretty, so that standard output reads as
// the marks, then one report.
func shareStdout(outputs []Output) []Output {
	pretty := slices.IndexFunc(outputs, func(o Output) bool { return o.Name == "pretty" })
	progress := slices.IndexFunc(outputs, func(o Output) bool { return o.Name == "progress" })
	if pretty < 0 || progress < 0 {
		return outputs
	}
	outputs[progress].Writer.(*Progress).marksOnly = true
	if progress > pretty {
		outputs[pretty], outputs[progress] = outputs[progress], outputs[pretty]
	}
	return outputs
}

// WriteAll renders the run to every output, creating files and their parent
// directories. It writes every output it can, so one bad path does not lose
// the other reports, and returns the first error.
func WriteAll(outputs []Output, stdout io.Writer, run outcome.Run) error {
	var first error
	for _, o := range outputs {
		var err error
		if o.Path == "" {
			err = o.Writer.Write(stdout, run)
		} else {
			err = writeFile(o, run)
		}
		if err != nil && first == nil {
			first = fmt.Errorf("%s report: %w", o.Name, err)
		}
	}
	return first
}

func writeFile(o Output, run outcome.Run) (err error) {
	if err := os.MkdirAll(filepath.Dir(o.Path), 0o755); err != nil {
		return err
	}
	f, err := os.Create(o.Path)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	b := bufio.NewWriter(f)
	if err := o.Writer.Write(b, run); err != nil {
		return err
	}
	return b.Flush()
}

// LiveAll returns a Live that forwards to every output whose Writer takes
// live progress; the run calls it without knowing which formats were chosen.
func LiveAll(outputs []Output) Live {
	var ls liveSet
	for _, o := range outputs {
		if l, ok := o.Writer.(Live); ok {
			ls = append(ls, l)
		}
	}
	return ls
}

type liveSet []Live

func (ls liveSet) ScenarioStarted(r outcome.Result) {
	for _, l := range ls {
		l.ScenarioStarted(r)
	}
}

func (ls liveSet) ScenarioFinished(r outcome.Result) {
	for _, l := range ls {
		l.ScenarioFinished(r)
	}
}

func (ls liveSet) Waiting(what string, d time.Duration) {
	for _, l := range ls {
		l.Waiting(what, d)
	}
}
