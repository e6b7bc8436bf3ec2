package steps

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// registerTime binds the step that lets time pass on the host (source 3 and
// 8: the five-minute device window, the seven-day registration lifetime).
func (st *State) registerTime(sc stepContext) {
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

func (st *State) timePasses(ctx context.Context, span string) error {
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
