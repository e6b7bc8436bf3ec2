package tools

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/conform-mcp/conform/impl/budget"
)

var _ = DescribeTable("the size a result is charged bounds what the SDK writes (issue 15 item 1)",
	func(text string) {
		res := success(text, map[string]any{"path": "/x", "length": len(text)})
		res.Content = append(res.Content, &mcp.TextContent{Text: "Truncated: " + text})
		data, err := json.Marshal(res)
		Expect(err).NotTo(HaveOccurred())
		sdk, err := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: jsonrpc.ID{}, Result: data})
		Expect(err).NotTo(HaveOccurred())
		Expect(encodedSize(res)).To(BeNumerically(">=", len(data)))
		Expect(encodedSize(res)).To(BeNumerically(">=", len(sdk)-len(`{"jsonrpc":"2.0","result":}`)))
		// Exact but for the encoder's newline, and \b and \f, which are
		// counted as six bytes though encoding/json writes them as two;
		// each text is in the result twice.
		Expect(encodedSize(res)).To(BeNumerically("<=", len(data)+1+8*strings.Count(text, "\b")+8*strings.Count(text, "\f")))
	},
	Entry("plain text", "hello, world"),
	Entry("what encoding/json writes six times over", strings.Repeat("<>&", 100)),
	Entry("quotes and backslashes", `"a\b"`),
	Entry("control characters", "\x00\x01\n\r\t\b\f\x1f"),
	Entry("line and paragraph separators", "a\u2028b\u2029c"),
	Entry("invalid UTF-8", "a\xffb\xc3"),
	Entry("multi-byte text", "aé€😀"),
)

var _ = Describe("a tool call within the request's budget (issue 15 item 1)", func() {
	echo := tool{name: "echo", handle: func(_ context.Context, raw json.RawMessage) *mcp.CallToolResult {
		return success(string(raw), nil)
	}}

	It("runs as before when the request has no budget", func() {
		Expect(echo.call(context.Background(), json.RawMessage("hi")).IsError).To(BeFalse())
	})

	It("charges the result, and fails once the request's replies exceed the budget", func() {
		b := budget.New(budget.Limits{ReplyBytes: 200, ScanBytes: 1, Timeout: time.Minute}, time.Now())
		ctx := budget.NewContext(context.Background(), b)
		Expect(echo.call(ctx, json.RawMessage("hi")).IsError).To(BeFalse())
		res := echo.call(ctx, json.RawMessage(strings.Repeat("<", 100)))
		Expect(res.IsError).To(BeTrue())
		Expect(b.Err()).To(MatchError(ContainSubstring("the replies to this request would exceed 200 bytes")))
	})

	It("does no work once the budget is spent", func() {
		b := budget.New(budget.Limits{ReplyBytes: 200, ScanBytes: 1, Timeout: time.Minute}, time.Now())
		Expect(b.Scan(2)).NotTo(Succeed())
		ran := false
		t := tool{name: "t", handle: func(context.Context, json.RawMessage) *mcp.CallToolResult { ran = true; return success("", nil) }}
		Expect(t.call(budget.NewContext(context.Background(), b), nil).IsError).To(BeTrue())
		Expect(ran).To(BeFalse())
	})
})
