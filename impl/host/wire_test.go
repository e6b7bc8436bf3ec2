package host_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"

	. "github.com/onsi/gomega"
)

// exchange is one raw HTTP round trip to a test host.
type exchange struct {
	status int
	header http.Header
	body   []byte
}

// post sends body to {url}/mcp as a JSON-RPC request, with a bearer
// credential when token is not "".
func post(srv *httptest.Server, token, body string) exchange {
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/mcp", bytes.NewBufferString(body))
	Expect(err).NotTo(HaveOccurred())
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return do(req)
}

func do(req *http.Request) exchange {
	resp, err := http.DefaultClient.Do(req)
	Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	Expect(err).NotTo(HaveOccurred())
	return exchange{status: resp.StatusCode, header: resp.Header, body: body}
}

func callBody(tool string, arguments any) string {
	b, err := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": arguments},
	})
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}

// toolResult is the part of a tools/call reply the specs look at.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent map[string]any `json:"structuredContent"`
	IsError           bool           `json:"isError"`
}

// callTool sends tools/call and expects HTTP 200 with a JSON-RPC result.
func callTool(srv *httptest.Server, token, tool string, arguments any) toolResult {
	ex := post(srv, token, callBody(tool, arguments))
	Expect(ex.status).To(Equal(http.StatusOK), string(ex.body))
	var reply struct {
		Result *toolResult      `json:"result"`
		Error  *json.RawMessage `json:"error"`
	}
	Expect(json.Unmarshal(ex.body, &reply)).To(Succeed())
	Expect(reply.Error).To(BeNil(), string(ex.body))
	Expect(reply.Result).NotTo(BeNil())
	return *reply.Result
}

// inCallError expects the in-call failure shape of source 7.1: isError and a
// single text content, and returns the text.
func inCallError(r toolResult) string {
	Expect(r.IsError).To(BeTrue())
	Expect(r.Content).To(HaveLen(1))
	Expect(r.Content[0].Type).To(Equal("text"))
	return r.Content[0].Text
}

func text(r toolResult) string {
	Expect(r.IsError).To(BeFalse(), "%v", r.Content)
	Expect(r.Content).NotTo(BeEmpty())
	return r.Content[0].Text
}
