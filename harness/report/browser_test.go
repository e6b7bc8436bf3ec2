package report_test

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"time"

	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/outcome"
	"github.com/conform-mcp/conform/harness/report"
	"github.com/conform-mcp/conform/harness/wire"
	"github.com/conform-mcp/conform/internal/browser"
	"github.com/conform-mcp/conform/spec"
)

// screenshotDir, when set, keeps the screenshot there for a person to look at.
var screenshotDir = os.Getenv("CONFORM_REPORT_SCREENSHOT_DIR")

var _ = Describe("the HTML report in a browser", Label("browser"), func() {
	It("renders the matrix and the failures in headless chromium", func() {
		chromiumPath, err := browser.Chromium()
		Expect(err).NotTo(HaveOccurred(), "this test needs Chromium")

		dir := GinkgoT().TempDir()
		page := filepath.Join(dir, "report.html")
		// One more failure whose reply is an event stream on a long line:
		// not JSON as a whole, so it is shown as it came and must wrap.
		run := fixtureRun()
		stream := wire.Exchange{Method: "POST", URL: "http://127.0.0.1:8080/mcp", Status: 200,
			ResponseHeader: map[string][]string{"Content-Type": {"text/event-stream"}},
			ResponseBody:   "event: message\ndata: " + longToolsList() + "\n"}
		run.Results = append(run.Results, outcome.Result{ID: "features/1_service.feature: Streamed reply", Pack: "source",
			Feature: "Service", FeatureFile: "features/1_service.feature", Scenario: "Streamed reply", Line: 4,
			Tags: []string{"@SVC-2"}, Requirements: []spec.Requirement{reqSVC2}, Status: outcome.Failed,
			Departure: outcome.Departf("Content-Type", "application/json", "text/event-stream", stream),
			Steps:     steps(4, "passed", "passed", "failed")})
		var html bytes.Buffer
		Expect(report.HTML{}.Write(&html, run)).To(Succeed())
		Expect(os.WriteFile(page, html.Bytes(), 0o644)).To(Succeed())

		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		DeferCleanup(cancel)
		ctx, cancelAlloc := chromedp.NewExecAllocator(ctx,
			chromedp.ExecPath(chromiumPath),
			chromedp.Flag("headless", true),
			chromedp.NoSandbox,
			chromedp.DisableGPU,
			chromedp.Flag("disable-quic", true),
			chromedp.NoFirstRun,
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.UserDataDir(filepath.Join(dir, "profile")),
			chromedp.WindowSize(1280, 900),
		)
		DeferCleanup(cancelAlloc)
		ctx, cancelTab := chromedp.NewContext(ctx)
		DeferCleanup(cancelTab)

		Expect(chromedp.Do(ctx, chromedp.Navigate("file://"+page))).To(Succeed())

		rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
			`[...document.querySelectorAll("table.matrix tbody th[scope=row]")].map(th => th.textContent)`))
		Expect(err).NotTo(HaveOccurred())
		Expect(rows).To(Equal([]string{"1", "5", "7.2", "7.3", "7.4", "8"}))

		failed, err := chromedp.Run(ctx, chromedp.Text(`table.matrix tbody tr:nth-child(3) td.c-fail`))
		Expect(err).NotTo(HaveOccurred())
		Expect(failed).To(Equal("2 (1 tolerated)"))

		verdicts, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
			`[...document.querySelectorAll("li.scenario .badge")].map(b => b.textContent)`))
		Expect(err).NotTo(HaveOccurred())
		Expect(verdicts).To(ContainElements("FAILED", "HARNESS ERROR", "not run", "passed"))

		// Failures come first, those that decide the exit code before the tolerated.
		sections, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
			`[...document.querySelectorAll("main > section > h2")].map(h => h.textContent)`))
		Expect(err).NotTo(HaveOccurred())
		Expect(sections).To(Equal([]string{"Failures (6)", "Requirements", "Outcomes by section of the source document", "Scenarios"}))
		failures, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
			`[...document.querySelectorAll("article.failure h3 .badge")].map(b => b.textContent)`))
		Expect(err).NotTo(HaveOccurred())
		Expect(failures).To(Equal([]string{"FAILED", "HARNESS ERROR", "PASSED, but listed as an expected failure", "FAILED",
			"failed (tolerated: SHOULD)", "failed (expected failure)"}))

		// The requirement matrix: failures first, and every link leads somewhere.
		first, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
			`[...document.querySelectorAll("table.requirements tbody tr:first-child > *")].map(c => c.textContent.trim())`))
		Expect(err).NotTo(HaveOccurred())
		Expect(first[:4]).To(Equal([]string{"SVC-2", "MUST", "1", "FAILED"}))
		dangling, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
			`[...document.querySelectorAll("a[href^='#']")].map(a => a.getAttribute("href")).filter(h => !document.getElementById(h.slice(1)))`))
		Expect(err).NotTo(HaveOccurred())
		Expect(dangling).To(BeEmpty())

		// The page as a person first sees it, long exchanges folded.
		shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		Expect(err).NotTo(HaveOccurred())
		img, err := png.Decode(bytes.NewReader(shot))
		Expect(err).NotTo(HaveOccurred())
		size := img.Bounds().Size()
		Expect(size.X).To(BeNumerically(">=", 800))
		// The full page holds every scenario, so it is taller than one screen.
		Expect(size.Y).To(BeNumerically(">", 900))
		if screenshotDir != "" {
			Expect(os.WriteFile(filepath.Join(screenshotDir, "report.png"), shot, 0o644)).To(Succeed())
		}

		// With every exchange unfolded, no line runs off the page.
		wide, err := chromedp.Run(ctx, chromedp.Evaluate[int](
			`document.querySelectorAll("details").forEach(d => d.open = true);
			 [...document.querySelectorAll("pre, dd")].filter(e => e.scrollWidth > e.clientWidth).length`))
		Expect(err).NotTo(HaveOccurred())
		Expect(wide).To(BeZero())
		pageWidth, err := chromedp.Run(ctx, chromedp.Evaluate[bool](
			`document.documentElement.scrollWidth <= document.documentElement.clientWidth`))
		Expect(err).NotTo(HaveOccurred())
		Expect(pageWidth).To(BeTrue(), "the page scrolls sideways")

		// Steps that ran show what they sent, not their placeholders.
		sent, err := chromedp.Run(ctx, chromedp.Text(`#failure-2 ol.steps li:nth-child(2)`))
		Expect(err).NotTo(HaveOccurred())
		Expect(sent).To(HavePrefix("When the caller calls no_such_tool on /public/readme.md"))

		// A body that looks like markup must show as text, not become elements.
		scripts, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.scripts.length`))
		Expect(err).NotTo(HaveOccurred())
		Expect(scripts).To(BeZero())
	})
})
