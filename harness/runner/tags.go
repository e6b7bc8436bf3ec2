package runner

import (
	"fmt"
	"testing/fstest"

	"github.com/cucumber/godog"
)

// probeFeature is the smallest feature a tag expression can be tried on.
var probeFeature = fstest.MapFS{"probe.feature": {Data: []byte("@probe\nFeature: probe\n  Scenario: probe\n    Given a step\n")}}

// checkTags tries a tag expression on a feature of its own, so that a
// malformed one ("@a &&", a lone "~") is a usage error told before anything
// is sent: the feature runner panics on one instead of refusing it.
func checkTags(expr string) (err error) {
	if expr == "" {
		return nil
	}
	defer func() {
		if recover() != nil {
			err = fmt.Errorf(`tag expression %q is malformed: write tags joined by "," (or), "&&" (and) and "~" (not), e.g. "@T401-1,@T401-2 && ~@needs-peer"`, expr)
		}
	}()
	_, err = godog.TestSuite{Options: &godog.Options{FS: probeFeature, Paths: []string{"probe.feature"}, Tags: expr}}.RetrieveFeatures()
	if err != nil {
		return fmt.Errorf("tag expression %q: %w", expr, err)
	}
	return nil
}
