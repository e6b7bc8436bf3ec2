package report

// Names are the --format entries as a shell completes them: those that
// write a file end with the colon the file name follows.
func Names() []string {
	return []string{"pretty", "progress", "junit:", "cucumber:", "html:", "json:"}
}
