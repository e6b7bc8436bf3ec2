package fakehost_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/harness/fakehost"
)

// post sends one JSON-RPC message to the host's /mcp and returns the response
// and its body.
func post(srv *httptest.Server, header map[string]string, body string) (*http.Response, string) {
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := srv.Client().Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return resp, string(raw)
}

func serve(opts fakehost.MCPOptions) (*fakehost.Host, *httptest.Server) {
	h := fakehost.New(opts)
	srv := httptest.NewServer(h.Handler())
	DeferCleanup(srv.Close)
	return h, srv
}

const (
	initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	toolsList  = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
)

var _ = Describe("the fake host", func() {
	It("issues distinct credentials, one of which it refuses", func() {
		h, srv := serve(fakehost.MCPOptions{})
		Expect(h.Credential()).NotTo(Equal(h.PeerCredential()))
		resp, _ := post(srv, map[string]string{"Authorization": "Bearer " + h.Credential()}, toolsList)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		resp, body := post(srv, map[string]string{"Authorization": "Bearer " + h.PeerCredential()}, toolsList)
		Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized))
		Expect(body).To(MatchJSON(`{"error":"Unauthorized"}`))
	})

	It("refuses anonymous notifications, which source 5.3 leaves off the allowlist", func() {
		_, srv := serve(fakehost.MCPOptions{})
		resp, _ := post(srv, nil, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized))
	})

	It("answers an anonymous batch request by request as the Other host, refusing what the allowlist does not admit", func() {
		_, srv := serve(fakehost.MCPOptions{Other: true})
		batch := `[` + toolsList + `,{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"afs_write","arguments":{"path":"/overlay/scratch.txt","content":"x"}}}]`
		resp, body := post(srv, nil, batch)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		var answers []map[string]json.RawMessage
		Expect(json.Unmarshal([]byte(body), &answers)).To(Succeed())
		Expect(answers).To(HaveLen(2))
		Expect(answers[0]).To(HaveKey("result"))
		Expect(answers[1]).To(HaveKey("error"))
		Expect(answers[1]).NotTo(HaveKey("result"))
	})

	It("keeps sessions in Sessions mode, after the gates", func() {
		h, srv := serve(fakehost.MCPOptions{Mode: fakehost.Sessions})
		resp, _ := post(srv, nil, initialize)
		id := resp.Header.Get("Mcp-Session-Id")
		Expect(id).NotTo(BeEmpty())

		resp, _ = post(srv, nil, toolsList)
		Expect(resp.StatusCode).To(Equal(http.StatusBadRequest), "no session id")
		resp, _ = post(srv, map[string]string{"Mcp-Session-Id": "fake-ended"}, toolsList)
		Expect(resp.StatusCode).To(Equal(http.StatusNotFound), "an unknown session")
		resp, _ = post(srv, map[string]string{"Mcp-Session-Id": id}, toolsList)
		Expect(resp.StatusCode).To(Equal(http.StatusOK))

		// A rejected credential is a 401 whether or not a session is carried.
		resp, _ = post(srv, map[string]string{"Authorization": "Bearer " + h.PeerCredential()}, toolsList)
		Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized))
	})

	It("streams a notification before the response in SSE mode", func() {
		_, srv := serve(fakehost.MCPOptions{Mode: fakehost.SSE})
		resp, body := post(srv, nil, toolsList)
		Expect(resp.Header.Get("Content-Type")).To(Equal("text/event-stream"))
		Expect(strings.Index(body, "notifications/message")).To(BeNumerically("<", strings.Index(body, `"result"`)))
	})

	It("lets more routes share the instance through Mux", func() {
		h, srv := serve(fakehost.MCPOptions{})
		h.Mux().HandleFunc("GET /extra", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
		resp, err := srv.Client().Get(srv.URL + "/extra")
		Expect(err).NotTo(HaveOccurred())
		resp.Body.Close()
		Expect(resp.StatusCode).To(Equal(http.StatusTeapot))

		resp, err = srv.Client().Get(srv.URL + "/.well-known/mcp.json")
		Expect(err).NotTo(HaveOccurred())
		defer resp.Body.Close()
		var doc map[string]any
		Expect(json.NewDecoder(resp.Body).Decode(&doc)).To(Succeed())
		Expect(doc).To(HaveKeyWithValue("url", srv.URL+"/mcp"))
	})

	It("lists the content tools only when collections are declared", func() {
		names := func(opts fakehost.MCPOptions) []string {
			_, srv := serve(opts)
			_, body := post(srv, nil, toolsList)
			var reply struct {
				Result struct {
					Tools []struct{ Name string } `json:"tools"`
				} `json:"result"`
			}
			Expect(json.Unmarshal([]byte(body), &reply)).To(Succeed())
			var out []string
			for _, t := range reply.Result.Tools {
				out = append(out, t.Name)
			}
			return out
		}
		Expect(names(fakehost.MCPOptions{})).NotTo(ContainElement("search_content"))
		Expect(names(fakehost.MCPOptions{Collections: true})).To(ContainElement("search_content"))
	})
})
