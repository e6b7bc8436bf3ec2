package steps

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"sync"

	"github.com/cucumber/godog"

	"github.com/conform-mcp/conform/harness/outcome"
)

// stepContext is a scenario's godog context whose Step compiles each step
// pattern once per process, and keeps the scenario's judgements so that a
// premise can run one by its text. godog compiles a pattern given as a string
// every time it is registered, and every step is registered again for every
// scenario: most of a run's work would be compiling the same patterns.
type stepContext struct {
	*godog.ScenarioContext
	// judgements are the steps registered so far, which a premise may name.
	judgements *[]judgement
}

// judgement is a registered step: its pattern and its function.
type judgement struct {
	re *regexp.Regexp
	fn any
}

// patterns holds every step pattern compiled so far, by its text.
var patterns sync.Map

// compiled returns expr compiled, once per process.
func compiled(expr string) *regexp.Regexp {
	re, ok := patterns.Load(expr)
	if !ok {
		re, _ = patterns.LoadOrStore(expr, regexp.MustCompile(expr))
	}
	return re.(*regexp.Regexp)
}

// Step binds the steps matching expr to fn, as godog.ScenarioContext.Step.
// A malformed pattern panics, as godog's own Step does: it is a bug in the
// vocabulary, found by the first run.
func (sc stepContext) Step(expr string, fn any) {
	re := compiled(expr)
	*sc.judgements = append(*sc.judgements, judgement{re: re, fn: fn})
	// Without a scenario (the vocabulary's own guard test) a step is only
	// recorded.
	if sc.ScenarioContext != nil {
		sc.ScenarioContext.Step(re, fn)
	}
}

// premisePattern is the one form of a premise: "that" and then the text of
// a judgement. A feature writes it as "Given that the HTTP status is 401":
// what follows "Given that" must hold for the scenario to say anything about
// its requirement, and when it does not, the scenario is not run, naming
// what did not hold; the same words after "Then" fail the host.
const premisePattern = `^that (.+)$`

// registerPremise binds the premise step over the judgements registered
// before it and after it alike (it looks them up when it runs).
func (st *State) registerPremise(sc stepContext) {
	sc.Step(premisePattern, func(ctx context.Context, text string) error {
		return st.premise(ctx, *sc.judgements, text)
	})
}

// premise runs the one judgement whose pattern matches text, and turns a
// departure from it into "not run": a premise that does not hold is no
// verdict on the requirement the scenario checks (another scenario judges
// it). A judgement that itself says why it cannot run keeps its reason.
func (st *State) premise(ctx context.Context, all []judgement, text string) error {
	var found []judgement
	for _, j := range all {
		if j.re.String() != premisePattern && j.re.MatchString(text) {
			found = append(found, j)
		}
	}
	if len(found) != 1 {
		return fmt.Errorf("the premise %q matches %d steps of the vocabulary, not one", text, len(found))
	}
	err := invoke(ctx, found[0], text)
	var d *outcome.Departure
	if errors.As(err, &d) {
		return st.skip(fmt.Sprintf("the premise %q does not hold: %s, expected %s, but actual is %s; the scenario that judges it says whether the host departs",
			text, d.Check, d.Expected, d.Actual))
	}
	return err
}

// invoke calls a step's function with the arguments its pattern captures
// from text, converted as godog converts them (strings and integers), after
// the context when the function takes one.
func invoke(ctx context.Context, j judgement, text string) error {
	fn := reflect.ValueOf(j.fn)
	ft := fn.Type()
	groups := j.re.FindStringSubmatch(text)[1:]
	var args []reflect.Value
	i := 0
	if ft.NumIn() > 0 && ft.In(0) == reflect.TypeFor[context.Context]() {
		args = append(args, reflect.ValueOf(ctx))
		i = 1
	}
	if ft.NumIn()-i != len(groups) {
		return fmt.Errorf("the step %s takes %d arguments, its pattern captures %d", j.re, ft.NumIn()-i, len(groups))
	}
	for k, g := range groups {
		switch ft.In(i + k).Kind() {
		case reflect.String:
			args = append(args, reflect.ValueOf(g))
		case reflect.Int:
			n, err := strconv.Atoi(g)
			if err != nil {
				return fmt.Errorf("the step %s: %q is not an integer", j.re, g)
			}
			args = append(args, reflect.ValueOf(n))
		default:
			return fmt.Errorf("the step %s cannot be a premise: it takes a %s", j.re, ft.In(i+k))
		}
	}
	out := fn.Call(args)
	if len(out) == 0 {
		return nil
	}
	if err, ok := out[len(out)-1].Interface().(error); ok {
		return err
	}
	return nil
}
