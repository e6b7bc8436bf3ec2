package oauth

import (
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"syscall"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// Issue 26 item 5: with the disk full, registrations failed 500
// server_error; a full disk is no fault of the request.
var _ = Describe("A store failure", func() {
	It("answers a full disk 503 temporarily_unavailable with Retry-After, as JSON and as a page", func() {
		full := fmt.Errorf("register client: %w", &fs.PathError{Op: "write", Path: "host.db.registrations", Err: syscall.ENOSPC})
		w := httptest.NewRecorder()
		writeError(w, serverError(full))
		Expect(w.Code).To(Equal(http.StatusServiceUnavailable))
		Expect(w.Header().Get("Retry-After")).To(Equal("60"))
		Expect(w.Body.String()).To(ContainSubstring(`"error":"temporarily_unavailable"`))

		page := httptest.NewRecorder()
		failed(page, fmt.Errorf("commit: %w", syscall.EDQUOT))
		Expect(page.Code).To(Equal(http.StatusServiceUnavailable))
		Expect(page.Header().Get("Retry-After")).To(Equal("60"))
	})

	It("answers any other failure 500 server_error", func() {
		w := httptest.NewRecorder()
		writeError(w, serverError(fmt.Errorf("decode record: %w", syscall.EIO)))
		Expect(w.Code).To(Equal(http.StatusInternalServerError))
		Expect(w.Header().Get("Retry-After")).To(BeEmpty())
		Expect(w.Body.String()).To(ContainSubstring(`"error":"server_error"`))
	})
})
