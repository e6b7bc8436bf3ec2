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

	"github.com/conform-mcp/conform/harness/report"
	"github.com/conform-mcp/conform/internal/browser"
)

// screenshotDir, when set, keeps the screenshot there for a person to look at.
var screenshotDir = os.Getenv("CONFORM_REPORT_SCREENSHOT_DIR")

var _ = Describe("the HTML report in a browser", Label("browser"), func() {
	It("renders the matrix and the failures in headless chromium", func() {
		chromiumPath, err := browser.Chromium()
		Expect(err).NotTo(HaveOccurred(), "this test needs Chromium")

		dir := GinkgoT().TempDir()
		page := filepath.Join(dir, "report.html")
		Expect(os.WriteFile(page, []byte(render(report.HTML{})), 0o644)).To(Succeed())

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

		// A body that looks like markup must show as text, not become elements.
		scripts, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.scripts.length`))
		Expect(err).NotTo(HaveOccurred())
		Expect(scripts).To(BeZero())

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
	})
})
