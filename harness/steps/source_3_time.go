package steps

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/conform-mcp/conform/harness/target"
)

// registerTime binds the step that lets time pass on the host (source 3 and
// 8: the five-minute device window, the seven-day registration lifetime).
func (st *sourceState) registerTime(sc stepContext) {
	sc.Step(`^(.+) pass(?:es)? on the host's clock$`, st.timePasses)
}

var durationPart = regexp.MustCompile(`^(\d+) (day|hour|minute|second)s?$`)

// parseSpan reads "4 minutes 59 seconds", "7 days and 1 second", "5 minutes".
func parseSpan(s string) (time.Duration, error) {
	fields := strings.Fields(strings.ReplaceAll(s, " and ", " "))
	if len(fields) == 0 || len(fields)%2 != 0 {
		return 0, fmt.Errorf("cannot read the time span %q", s)
	}
	units := map[string]time.Duration{"day": 24 * time.Hour, "hour": time.Hour, "minute": time.Minute, "second": time.Second}
	var total time.Duration
	for i := 0; i < len(fields); i += 2 {
		m := durationPart.FindStringSubmatch(fields[i] + " " + fields[i+1])
		if m == nil {
			return 0, fmt.Errorf("cannot read the time span %q", s)
		}
		n, _ := strconv.Atoi(m[1])
		total += time.Duration(n) * units[m[2]]
	}
	return total, nil
}

func (st *sourceState) timePasses(ctx context.Context, span string) error {
	d, err := parseSpan(span)
	if err != nil {
		return err
	}
	if st.Target.Clock == nil && !st.Target.Profile.Slow {
		return st.skip(st.Target.Lacks("time"))
	}
	if err := st.Target.Wait(ctx, d, st.Announce); err != nil {
		return err
	}
	// The run's kept client ages with the host (source 3: unused for seven
	// days, its registration is gone).
	st.clients.age(d)
	return nil
}

// deviceWindow is the five-minute validity of a device code (source 3 and
// 8); a credential kept across a run waits at least as long when the
// profile allows real-time waits.
const deviceWindow = 5 * time.Minute

// keptCredential is the credential the device grant issued early in the run,
// used again at its end. The suite cannot move an external host's clock, but
// it can show that the credential still works after the real time the run
// took (source 3: a credential from the device grant has no expiry).
type keptCredential struct {
	mu     sync.Mutex
	token  string
	issued time.Time
}

func (k *keptCredential) keep(token string, at time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.token, k.issued = token, at
}

func (k *keptCredential) get() (string, time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.token, k.issued
}

// registerKept binds the steps that keep a credential across the run.
func (st *sourceState) registerKept(sc stepContext) {
	sc.Step(`^the credential just issued is kept for the end of the run$`, st.keepIssued)
	st.credentials["the credential kept from the start of the run"] = st.withKept
	sc.Step(`^the result says how long the credential was observed to live$`, st.observeLifetime)
}

func (st *sourceState) keepIssued() error {
	if st.flow.issued == "" {
		return fmt.Errorf("no credential issued yet in this scenario")
	}
	st.kept.keep(st.flow.issued, time.Now())
	return nil
}

// withKept calls with the kept credential. With slow: true and no control of
// the host's clock, it first waits until the credential is at least as old
// as the five-minute window.
func (st *sourceState) withKept(ctx context.Context) error {
	tok, issued := st.kept.get()
	if tok == "" {
		return st.skip("uses the credential kept by \"A credential from the device grant is kept to be used again at the end of the run\" (3_time_windows.feature), which did not run")
	}
	if st.Target.Clock == nil && st.Target.Profile.Slow {
		if rest := deviceWindow - time.Since(issued); rest > 0 {
			if st.Announce != nil {
				st.Announce("waiting in real time until the kept credential is five minutes old", rest)
			}
			if err := target.Sleep(ctx, rest); err != nil {
				return err
			}
		}
	}
	st.flow.issued = tok
	st.auth = "Bearer " + tok
	return nil
}

func (st *sourceState) observeLifetime() error {
	_, issued := st.kept.get()
	if issued.IsZero() {
		return fmt.Errorf("no credential kept in this run")
	}
	lived := time.Since(issued).Round(time.Second)
	st.Notes.Observe(st.pickleID, fmt.Sprintf("the credential the device grant issued %s earlier (real time) still works: observed to live at least %s", lived, lived))
	return nil
}
