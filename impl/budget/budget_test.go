package budget_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/budget"
	"github.com/conform-mcp/conform/impl/caller"
)

var limits = budget.Limits{ReplyBytes: 100, ScanBytes: 1000, Timeout: time.Minute}

var _ = Describe("a request's budget", func() {
	It("allows everything when there is none", func() {
		var b *budget.Budget
		ctx, done, err := b.Turn(context.Background())
		Expect(err).NotTo(HaveOccurred())
		done()
		Expect(ctx).To(Equal(context.Background()))
		Expect(b.Reply(1 << 40)).To(Succeed())
		Expect(b.Scan(1 << 40)).To(Succeed())
		Expect(b.Finish()).To(Succeed())
		Expect(budget.FromContext(context.Background())).To(BeNil())
	})

	It("counts the replies of all the request's calls together", func() {
		b := budget.New(limits, time.Now())
		Expect(b.Reply(60)).To(Succeed())
		Expect(b.Reply(40)).To(Succeed())
		err := b.Reply(1)
		Expect(err).To(MatchError("Invalid Request: the replies to this request would exceed 100 bytes; send fewer calls per request, or read in parts with offset and length"))
		Expect(b.Err()).To(Equal(err))
	})

	It("counts the bytes its searches read together", func() {
		b := budget.New(limits, time.Now())
		Expect(b.Scan(999)).To(Succeed())
		Expect(b.Scan(2)).To(MatchError(ContainSubstring("the searches of this request would read more than 1000 bytes of files")))
	})

	It("keeps the first limit exceeded, and refuses every call after it", func() {
		b := budget.New(limits, time.Now())
		Expect(b.Scan(1001)).NotTo(Succeed())
		Expect(b.Reply(101)).To(MatchError(ContainSubstring("searches")))
		_, _, err := b.Turn(context.Background())
		Expect(err).To(MatchError(ContainSubstring("searches")))
	})

	It("lets the request's calls run one at a time", func() {
		b := budget.New(limits, time.Now())
		var running, most atomic.Int32
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				defer GinkgoRecover()
				_, done, err := b.Turn(context.Background())
				Expect(err).NotTo(HaveOccurred())
				n := running.Add(1)
				if n > most.Load() {
					most.Store(n)
				}
				time.Sleep(time.Millisecond)
				running.Add(-1)
				done()
			})
		}
		wg.Wait()
		Expect(most.Load()).To(Equal(int32(1)))
	})

	It("does not start a waiting call whose request went away", func() {
		b := budget.New(limits, time.Now())
		_, done, err := b.Turn(context.Background())
		Expect(err).NotTo(HaveOccurred())
		defer done()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, _, err = b.Turn(ctx)
		Expect(err).To(MatchError(context.Canceled))
	})

	It("bounds a call's context by the request's deadline, and is over time once it passed", func() {
		b := budget.New(budget.Limits{ReplyBytes: 100, ScanBytes: 100, Timeout: 20 * time.Millisecond}, time.Now())
		ctx, done, err := b.Turn(context.Background())
		Expect(err).NotTo(HaveOccurred())
		<-ctx.Done()
		done()
		Expect(b.Finish()).To(MatchError("Internal error: the calls of this request ran longer than 20ms; send fewer calls per request"))
		_, _, err = b.Turn(context.Background())
		Expect(err).To(HaveOccurred())
	})
})

var _ = Describe("Bound", func() {
	serve := func(l budget.Limits, next http.HandlerFunc) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "http://host.test/mcp", strings.NewReader("[]"))
		budget.Bound(next, l).ServeHTTP(rec, req)
		return rec
	}

	It("passes the answer through while the budget holds", func() {
		rec := serve(limits, func(w http.ResponseWriter, r *http.Request) {
			Expect(budget.FromContext(r.Context()).Reply(100)).To(Succeed())
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`[{"jsonrpc":"2.0","id":1,"result":{}}]`))
		})
		Expect(rec.Code).To(Equal(http.StatusOK))
		Expect(rec.Body.String()).To(Equal(`[{"jsonrpc":"2.0","id":1,"result":{}}]`))
	})

	It("answers a request over its reply budget with one JSON-RPC error, and none of its replies", func() {
		rec := serve(limits, func(w http.ResponseWriter, r *http.Request) {
			_ = budget.FromContext(r.Context()).Reply(101)
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("X-Part", "1")
			w.WriteHeader(http.StatusOK)
			http.NewResponseController(w).Flush()
			_, _ = w.Write([]byte(`[{"jsonrpc":"2.0","id":1,"result":{"partial":true}}]`))
		})
		Expect(rec.Code).To(Equal(http.StatusBadRequest))
		Expect(rec.Header().Get("Content-Type")).To(Equal("application/json"))
		Expect(rec.Header().Get("X-Part")).To(BeEmpty())
		Expect(rec.Body.String()).To(MatchJSON(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: the replies to this request would exceed 100 bytes; send fewer calls per request, or read in parts with offset and length"}}`))
	})

	// Issue 26 item 6: an anonymous request costs at most about its time.
	It("gives a request without a credential the anonymous timeout, and one with a credential the whole", func() {
		l := budget.Limits{ReplyBytes: 100, ScanBytes: 100, Timeout: time.Minute, AnonymousTimeout: 20 * time.Millisecond}
		var deadline time.Time
		call := func(_ http.ResponseWriter, r *http.Request) {
			ctx, done, err := budget.FromContext(r.Context()).Turn(r.Context())
			Expect(err).NotTo(HaveOccurred())
			deadline, _ = ctx.Deadline()
			done()
		}
		start := time.Now()
		Expect(serve(l, call).Code).To(Equal(http.StatusOK))
		Expect(deadline).To(BeTemporally("~", start.Add(20*time.Millisecond), 15*time.Millisecond))

		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, "http://host.test/mcp", strings.NewReader("[]"))
		req = req.WithContext(caller.NewContext(req.Context(), caller.Caller{ClientID: "c", Role: "guest"}))
		start = time.Now()
		budget.Bound(http.HandlerFunc(call), l).ServeHTTP(rec, req)
		Expect(deadline).To(BeTemporally("~", start.Add(time.Minute), time.Second))
	})

	It("answers a request that ran out of time with 503 and a Retry-After, even when nothing was written", func() {
		rec := serve(budget.Limits{ReplyBytes: 100, ScanBytes: 100, Timeout: 10 * time.Millisecond}, func(_ http.ResponseWriter, r *http.Request) {
			b := budget.FromContext(r.Context())
			ctx, done, err := b.Turn(r.Context())
			Expect(err).NotTo(HaveOccurred())
			<-ctx.Done()
			done()
			Expect(b.Finish()).NotTo(Succeed())
		})
		Expect(rec.Code).To(Equal(http.StatusServiceUnavailable))
		Expect(rec.Body.String()).To(MatchJSON(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error: the calls of this request ran longer than 10ms; send fewer calls per request"}}`))
		Expect(rec.Header().Get("Retry-After")).To(Equal("1"))
	})
})

// Issue 26 item 1: the replies of all requests together are bounded.
var _ = Describe("the host's bound on reply bytes in flight", func() {
	l := budget.Limits{ReplyBytes: 1 << 20, ScanBytes: 1, Timeout: 50 * time.Millisecond, InFlightBytes: 100}

	It("makes a request wait while others hold the bound, answers it 503 with Retry-After past its time, and frees what a request held once it is answered", func() {
		holding := make(chan struct{})
		answer := make(chan struct{})
		bound := budget.Bound(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b := budget.FromContext(r.Context())
			if r.Header.Get("X-Hold") != "" {
				Expect(b.Hold(r.Context(), 80)).To(Succeed())
				close(holding)
				<-answer
			} else if err := b.Hold(r.Context(), 40); err != nil {
				return
			}
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
		}), budget.Limits{ReplyBytes: l.ReplyBytes, ScanBytes: l.ScanBytes, Timeout: time.Minute, AnonymousTimeout: l.Timeout, InFlightBytes: l.InFlightBytes})
		send := func(hold bool) *httptest.ResponseRecorder {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodPost, "http://host.test/mcp", strings.NewReader("{}"))
			if hold {
				req.Header.Set("X-Hold", "1")
			}
			bound.ServeHTTP(rec, req)
			return rec
		}
		held := make(chan *httptest.ResponseRecorder, 1)
		go func() { held <- send(true) }()
		<-holding
		rec := send(false)
		Expect(rec.Code).To(Equal(http.StatusServiceUnavailable))
		Expect(rec.Header().Get("Retry-After")).To(Equal("1"))
		Expect(rec.Body.String()).To(MatchJSON(`{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error: the host is answering as much as it holds at once; try again shortly"}}`))
		close(answer)
		Expect((<-held).Code).To(Equal(http.StatusOK))
		Expect(send(false).Code).To(Equal(http.StatusOK))
	})

	It("holds what a request's replies take beyond what its reads held, so every tool's reply counts against the bound", func() {
		holding := make(chan struct{})
		answer := make(chan struct{})
		bound := budget.Bound(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b := budget.FromContext(r.Context())
			if r.Header.Get("X-Hold") != "" {
				// A search's reply: charged, never held by a read.
				Expect(b.Reply(90)).To(Succeed())
				Expect(b.Cover(r.Context())).To(Succeed())
				close(holding)
				<-answer
			} else if err := b.Hold(r.Context(), 40); err != nil {
				return
			}
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
		}), budget.Limits{ReplyBytes: l.ReplyBytes, ScanBytes: l.ScanBytes, Timeout: time.Minute, AnonymousTimeout: l.Timeout, InFlightBytes: l.InFlightBytes})
		send := func(hold bool) int {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodPost, "http://host.test/mcp", strings.NewReader("{}"))
			if hold {
				req.Header.Set("X-Hold", "1")
			}
			bound.ServeHTTP(rec, req)
			return rec.Code
		}
		held := make(chan int, 1)
		go func() { held <- send(true) }()
		<-holding
		Expect(send(false)).To(Equal(http.StatusServiceUnavailable))
		close(answer)
		Expect(<-held).To(Equal(http.StatusOK))
		Expect(send(false)).To(Equal(http.StatusOK))
	})

	It("refuses one of the holders that wait once the last holder at work gives back and the others still find no room", func() {
		// Two batches have read once each, 40 of 100 apiece, and wait for
		// 40 more while a third request holds 10. Once the third is
		// answered, 20 are free: neither batch can go on, and every holder
		// waits.
		var read sync.WaitGroup
		read.Add(2)
		answer := make(chan struct{})
		bound := budget.Bound(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b := budget.FromContext(r.Context())
			if r.Header.Get("X-Hold") != "" {
				Expect(b.Hold(r.Context(), 10)).To(Succeed())
				read.Wait()
				<-answer
			} else {
				Expect(b.Hold(r.Context(), 40)).To(Succeed())
				read.Done()
				read.Wait()
				if err := b.Hold(r.Context(), 40); err != nil {
					return
				}
			}
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
		}), budget.Limits{ReplyBytes: l.ReplyBytes, ScanBytes: l.ScanBytes, Timeout: time.Minute, InFlightBytes: l.InFlightBytes})
		send := func(hold bool) *httptest.ResponseRecorder {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodPost, "http://host.test/mcp", strings.NewReader("{}"))
			if hold {
				req.Header.Set("X-Hold", "1")
			}
			bound.ServeHTTP(rec, req)
			return rec
		}
		third := make(chan int, 1)
		go func() { third <- send(true).Code }()
		codes := make(chan *httptest.ResponseRecorder, 2)
		for range 2 {
			go func() {
				defer GinkgoRecover()
				codes <- send(false)
			}()
		}
		read.Wait()
		// Time for both batches to start waiting for their second share;
		// were the third answered first, the later batch would be refused
		// as it came to wait, and what follows holds all the same.
		time.Sleep(100 * time.Millisecond)
		close(answer)
		Expect(<-third).To(Equal(http.StatusOK))
		var got []int
		for range 2 {
			var rec *httptest.ResponseRecorder
			Eventually(codes, 5*time.Second).Should(Receive(&rec), "long before the minute either may wait")
			got = append(got, rec.Code)
			if rec.Code == http.StatusServiceUnavailable {
				Expect(rec.Header().Get("Retry-After")).To(Equal("1"))
			}
		}
		Expect(got).To(ConsistOf(http.StatusOK, http.StatusServiceUnavailable))
	})

	It("refuses at once the request that, holding part of the bound, would wait for more while every other holder waits too, so that the others go on", func() {
		// Two batches have read once each, 40 of 100 apiece, and each
		// wants 40 more: were both to wait, neither would ever go on.
		var read sync.WaitGroup
		read.Add(2)
		bound := budget.Bound(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b := budget.FromContext(r.Context())
			Expect(b.Hold(r.Context(), 40)).To(Succeed())
			read.Done()
			read.Wait()
			if err := b.Hold(r.Context(), 40); err != nil {
				return
			}
			_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
		}), budget.Limits{ReplyBytes: l.ReplyBytes, ScanBytes: l.ScanBytes, Timeout: time.Minute, InFlightBytes: l.InFlightBytes})
		codes := make(chan *httptest.ResponseRecorder, 2)
		for range 2 {
			go func() {
				defer GinkgoRecover()
				rec := httptest.NewRecorder()
				bound.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "http://host.test/mcp", strings.NewReader("{}")))
				codes <- rec
			}()
		}
		var got []int
		for range 2 {
			var rec *httptest.ResponseRecorder
			Eventually(codes, 5*time.Second).Should(Receive(&rec), "long before the minute either may wait")
			got = append(got, rec.Code)
			if rec.Code == http.StatusServiceUnavailable {
				Expect(rec.Header().Get("Retry-After")).To(Equal("1"))
				Expect(rec.Body.String()).To(ContainSubstring("the host is answering as much as it holds at once"))
			}
		}
		Expect(got).To(ConsistOf(http.StatusOK, http.StatusServiceUnavailable))
	})

	It("never makes a request wait for more than the whole bound, what it holds counted", func() {
		rec := httptest.NewRecorder()
		budget.Bound(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b := budget.FromContext(r.Context())
			Expect(b.Hold(r.Context(), 80)).To(Succeed())
			Expect(b.Hold(r.Context(), 80)).To(Succeed(), "the second read waits for nothing but the 20 bytes left")
			Expect(b.Hold(r.Context(), 1000)).To(Succeed())
			_, _ = w.Write([]byte(`{}`))
		}), l).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "http://host.test/mcp", strings.NewReader("{}")))
		Expect(rec.Code).To(Equal(http.StatusOK))
	})
})
