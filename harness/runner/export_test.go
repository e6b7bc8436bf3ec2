package runner

// RunFeatures is Run over the features in fsys, for the external tests.
var RunFeatures = run
