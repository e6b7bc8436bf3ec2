package oauthclient_test

import (
	"context"
	"errors"
	"net/http"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakeauthz"
	"github.com/conform-mcp/conform/harness/oauthclient"
)

// reply is an answer with a status and, when not "", a Retry-After.
func reply(status int, retryAfter string) *oauthclient.Reply {
	h := http.Header{}
	if retryAfter != "" {
		h.Set("Retry-After", retryAfter)
	}
	return &oauthclient.Reply{Status: status, Header: h}
}

// answers sends the replies given, one per request, and counts the requests.
type answers struct {
	replies []*oauthclient.Reply
	sent    int
}

func (a *answers) send() (*oauthclient.Reply, error) {
	r := a.replies[min(a.sent, len(a.replies)-1)]
	a.sent++
	return r, nil
}

// sleeps records the waits asked for, without waiting; err ends each.
type sleeps struct {
	waited []time.Duration
	err    error
}

func (s *sleeps) sleep(_ context.Context, d time.Duration) error {
	s.waited = append(s.waited, d)
	return s.err
}

var _ = Describe("obeying a throttled server's Retry-After (RFC 9110 10.2.3, RFC 6585 4)", func() {
	DescribeTable("sends a request once more after a short Retry-After, and only then",
		func(first *oauthclient.Reply, waited []time.Duration, sent int) {
			a := &answers{replies: []*oauthclient.Reply{first, reply(http.StatusOK, "")}}
			s := &sleeps{}
			r, err := oauthclient.ObeyRetryAfter(context.Background(), s.sleep, a.send)
			Expect(err).NotTo(HaveOccurred())
			Expect(s.waited).To(Equal(waited))
			Expect(a.sent).To(Equal(sent))
			Expect(r).To(BeIdenticalTo(a.replies[sent-1]))
		},
		Entry("429 with Retry-After 1", reply(http.StatusTooManyRequests, "1"), []time.Duration{time.Second}, 2),
		Entry("503 with Retry-After 10, the longest waited", reply(http.StatusServiceUnavailable, "10"), []time.Duration{10 * time.Second}, 2),
		Entry("a 4xx with Retry-After", reply(http.StatusBadRequest, "2"), []time.Duration{2 * time.Second}, 2),
		Entry("Retry-After 11, longer than waited", reply(http.StatusTooManyRequests, "11"), []time.Duration(nil), 1),
		Entry("Retry-After 3600", reply(http.StatusTooManyRequests, "3600"), []time.Duration(nil), 1),
		Entry("429 without Retry-After", reply(http.StatusTooManyRequests, ""), []time.Duration(nil), 1),
		Entry("Retry-After as an HTTP-date", reply(http.StatusTooManyRequests, "Fri, 27 Nov 2026 08:49:37 GMT"), []time.Duration(nil), 1),
		Entry("503 without Retry-After, no throttle", reply(http.StatusServiceUnavailable, ""), []time.Duration(nil), 1),
		Entry("200 with Retry-After, no throttle", reply(http.StatusOK, "1"), []time.Duration(nil), 1),
	)

	It("returns the second answer, still throttled, for the caller to classify", func() {
		a := &answers{replies: []*oauthclient.Reply{reply(http.StatusTooManyRequests, "1"), reply(http.StatusTooManyRequests, "1"), reply(http.StatusOK, "")}}
		s := &sleeps{}
		r, err := oauthclient.ObeyRetryAfter(context.Background(), s.sleep, a.send)
		Expect(err).NotTo(HaveOccurred())
		Expect(a.sent).To(Equal(2))
		Expect(r.Throttled()).To(BeTrue())
	})

	It("sends once when the wait ends early, or when there is nothing to wait with", func() {
		a := &answers{replies: []*oauthclient.Reply{reply(http.StatusTooManyRequests, "1"), reply(http.StatusOK, "")}}
		r, err := oauthclient.ObeyRetryAfter(context.Background(), (&sleeps{err: context.Canceled}).sleep, a.send)
		Expect(err).NotTo(HaveOccurred())
		Expect(a.sent).To(Equal(1))
		Expect(r.Status).To(Equal(http.StatusTooManyRequests))
		a = &answers{replies: []*oauthclient.Reply{reply(http.StatusTooManyRequests, "1"), reply(http.StatusOK, "")}}
		_, err = oauthclient.ObeyRetryAfter(context.Background(), nil, a.send)
		Expect(err).NotTo(HaveOccurred())
		Expect(a.sent).To(Equal(1))
	})

	It("passes a transport failure on without sending again", func() {
		sent := 0
		_, err := oauthclient.ObeyRetryAfter(context.Background(), (&sleeps{}).sleep, func() (*oauthclient.Reply, error) {
			sent++
			return nil, errors.New("connection refused")
		})
		Expect(err).To(MatchError("connection refused"))
		Expect(sent).To(Equal(1))
	})

	It("ends the code flow with ErrThrottled when the token endpoint asks for a long wait, having waited for nothing", func(ctx context.Context) {
		h := fakeauthz.Start(fakeauthz.TokenThrottled)
		DeferCleanup(h.Close)
		t := h.Target()
		s := &sleeps{}
		flow := oauthclient.CodeFlow{HTTP: t.HTTP, Approve: t.ApproveAuthorization, RedirectURI: "http://127.0.0.1:8765/callback", Sleep: s.sleep}
		_, err := flow.Obtain(ctx, h.Issuer(), h.Endpoint())
		Expect(err).To(MatchError(oauthclient.ErrThrottled))
		Expect(err.Error()).To(ContainSubstring(`HTTP 429, Retry-After "3600"`))
		Expect(s.waited).To(BeEmpty())
		Expect(flow.ClientID).NotTo(BeEmpty(), "the client registered on the way is kept")
	})
})
