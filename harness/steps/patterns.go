package steps

import (
	"regexp"
	"sync"

	"github.com/cucumber/godog"
)

// stepContext is a scenario's godog context whose Step compiles each step
// pattern once per process. godog compiles a pattern given as a string every
// time it is registered, and every step is registered again for every
// scenario: most of a run's work would be compiling the same patterns.
type stepContext struct {
	*godog.ScenarioContext
}

// patterns holds every step pattern compiled so far, by its text.
var patterns sync.Map

// Step binds the steps matching expr to fn, as godog.ScenarioContext.Step.
// A malformed pattern panics, as godog's own Step does: it is a bug in the
// vocabulary, found by the first run.
func (sc stepContext) Step(expr string, fn any) {
	re, ok := patterns.Load(expr)
	if !ok {
		re, _ = patterns.LoadOrStore(expr, regexp.MustCompile(expr))
	}
	sc.ScenarioContext.Step(re.(*regexp.Regexp), fn)
}
