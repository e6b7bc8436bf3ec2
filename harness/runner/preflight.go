package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/conform-mcp/conform/harness/mcpclient"
	"github.com/conform-mcp/conform/harness/oauthclient"
	"github.com/conform-mcp/conform/harness/profile"
	"github.com/conform-mcp/conform/harness/target"
	"github.com/conform-mcp/conform/harness/wire"
)

// NotToolHostError says that the target does not answer as a tool host at
// all (source 7.5, step 1), so that no scenario can tell anything about it.
type NotToolHostError struct {
	// Target is the base URL probed.
	Target string
	// Sent and Received describe the anonymous tools/list and its answer.
	Sent, Received string
	// Before describes a refused initialize handshake, if there was one.
	Before string
	// Discovery is what {target}/.well-known/mcp.json answered.
	Discovery string
}

// Error says it in a few lines: what was sent, what came back, what the
// discovery document answered, and source 7.5 step 1's advice.
func (e *NotToolHostError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s does not answer as an agent-facing tool host: an anonymous tools/list must answer HTTP 200 with a JSON-RPC result (source 7.5, step 1)\n", e.Target)
	fmt.Fprintf(&b, "  sent:      %s\n", e.Sent)
	if e.Before != "" {
		fmt.Fprintf(&b, "  before it: %s\n", e.Before)
	}
	fmt.Fprintf(&b, "  received:  %s\n", e.Received)
	fmt.Fprintf(&b, "  discovery: GET %s/.well-known/mcp.json %s\n", e.Target, e.Discovery)
	fmt.Fprintf(&b, "The host is unreachable or is not this kind of host: check the URL (the base URL, or the MCP endpoint ending in /mcp) and %s/.well-known/mcp.json. No scenario was run.", e.Target)
	return b.String()
}

// UsageError says that what the user supplied cannot be used: a credential
// refused by the very instance that should accept it, or a peer that does
// not answer. It is a mistake in the suite's input, never a departure of the
// host (PRODUCT.md section 3: exit 2).
type UsageError struct {
	msg string
}

// Error names the credential or key at fault and what to do about it.
func (e *UsageError) Error() string { return e.msg }

// CheckHost is the first half of the pre-flight before any scenario runs:
// an anonymous tools/list must answer 200 with a JSON-RPC result (source 7.5,
// step 1), or no scenario can tell anything about the target; otherwise it
// returns a *NotToolHostError, or an error saying the target is unreachable.
// It sends what any scenario sends, through the same client (initialize and
// sessions when the host wants them, JSON or event streams), and never ping,
// which anonymous callers may not use (source 5.3).
func CheckHost(ctx context.Context, t *target.Target) error {
	p := t.Profile
	r, err := probe(ctx, t, t.Endpoint(), "")
	if err != nil {
		return fmt.Errorf("%s (check the URL and %s/.well-known/mcp.json)", unanswered("target "+p.Target, err, probeBound(t)), p.Target)
	}
	if !answered(r) {
		return notToolHost(ctx, t, r)
	}
	return nil
}

// CheckCredentials is the second half of the pre-flight: each credential the
// user supplied must be served by the instance that issued it, tried with
// one authenticated request, the one the pack's scenarios present it on
// (the target's by the target; the peer's by the peer with a tools/list, the
// target refusing it being what a scenario checks). Anything but a 2xx
// (401 and 403 refusals, and a 500 alike), or a peer that does not answer,
// is a *UsageError quoting the answer: the scenarios that present the
// credential would otherwise each report a departure of the credential's,
// not of the host's. A refusal for the base protocol is left to the
// scenarios, and so are credentials the harness obtained itself.
func CheckCredentials(ctx context.Context, t *target.Target, on profile.Request) error {
	p := t.Profile
	if t.Credential != "" && t.CredentialSource != "" {
		r, err := probe(ctx, t, t.Endpoint(), t.Credential, on)
		if err != nil {
			return errors.New(unanswered("target "+t.Endpoint(), err, probeBound(t)))
		}
		if !served(r) {
			verb := "is not served by"
			if refused(r) {
				verb = "is refused by"
			}
			msg := fmt.Sprintf("%s %s the target %s (%s to an authenticated %s): sign in again with `conform login --target %s`",
				t.CredentialSource, verb, t.Endpoint(), describe(r.Status, r.Header, string(r.Body), r.Message), on.Method, p.Target)
			if p.Credential() != "" {
				// The variable wins over what conform login stores.
				msg += fmt.Sprintf(" and leave %s empty, or put a credential this host issued in it", p.CredentialEnv)
			}
			return &UsageError{msg: msg}
		}
	}
	if p.Peer != nil && t.PeerCredential != "" && t.PeerCredentialSource != "" {
		r, err := probe(ctx, t, p.Peer.Target+"/mcp", t.PeerCredential, profile.Request{Method: "tools/list"})
		if err != nil {
			return &UsageError{msg: unanswered("the peer "+p.Peer.Target, err, probeBound(t)) + " (check peer.target)"}
		}
		if !served(r) {
			return &UsageError{msg: fmt.Sprintf(
				"%s is refused by the peer %s (%s to an authenticated tools/list): peer.credential_env must name a variable holding a credential the peer issued (or leave it empty and set oauth.device_approval_command, so that conform signs in to the peer itself)",
				t.PeerCredentialSource, p.Peer.Target, describe(r.Status, r.Header, string(r.Body), r.Message))}
		}
	}
	return nil
}

// served is whether an authenticated request was served: a 2xx, or a
// refusal for the base protocol, which says nothing of the credential.
func served(r *mcpclient.Reply) bool {
	return r.Status/100 == 2 || r.ProtocolRefusal() != ""
}

// probe sends one request to an MCP endpoint (an anonymous tools/list when
// credential is "" and no request is named), in the revision the profile
// pins, if any.
func probe(ctx context.Context, t *target.Target, endpoint, credential string, on ...profile.Request) (*mcpclient.Reply, error) {
	ctx, cancel := context.WithTimeout(ctx, probeBound(t))
	defer cancel()
	auth := ""
	if credential != "" {
		auth = "Bearer " + credential
	}
	req := profile.Request{Method: "tools/list"}
	if len(on) > 0 {
		req = on[0]
	}
	var params any = req.Params
	if req.Params == nil {
		params = mcpclient.DefaultParams(req.Method)
	}
	return mcpclient.New(endpoint, t.HTTP).Pin(t.Profile.MCPRevision).Call(ctx, auth, req.Method, params)
}

// answered is source 7.5 step 1's test: HTTP 200 with a JSON-RPC result.
func answered(r *mcpclient.Reply) bool {
	m := r.Message
	return r.Status == http.StatusOK && m != nil && m.Error == nil && len(m.Result) > 0 && string(m.Result) != "null"
}

// refused says whether gate 2 refused the credential: 401 (source 7.2, a
// credential rejected), or 403 (RFC 6750 section 3.1, one it will not take
// for this request).
func refused(r *mcpclient.Reply) bool {
	return r.Status == http.StatusUnauthorized || r.Status == http.StatusForbidden
}

// notToolHost describes the anonymous tools/list that did not answer, and
// what the discovery document says, in a few lines.
func notToolHost(ctx context.Context, t *target.Target, r *mcpclient.Reply) error {
	last := r.Last()
	e := &NotToolHostError{
		Target:   t.Profile.Target,
		Sent:     fmt.Sprintf("%s %s %s, with no Authorization header", last.Method, last.URL, last.RequestBody),
		Received: describe(last.Status, last.ResponseHeader, last.ResponseBody, r.Message),
	}
	// What went before the call: the same call in MCP 2026-07-28 when the
	// host turned out to speak an earlier revision, the handshake then.
	var before []string
	for _, ex := range r.Exchanges[:len(r.Exchanges)-1] {
		if ex.Status/100 == 2 {
			continue
		}
		got := describe(ex.Status, ex.ResponseHeader, ex.ResponseBody, nil)
		if got == e.Received {
			got = "the same"
		}
		before = append(before, sent(ex)+" answered "+got)
	}
	e.Before = strings.Join(before, "; ")
	ctx, cancel := context.WithTimeout(ctx, probeBound(t))
	defer cancel()
	d, err := oauthclient.New(t.Profile.Target, oauthclient.Endpoints{}, t.HTTP).Get(ctx, mcpclient.DiscoveryPath)
	if err != nil {
		e.Discovery = "had no answer: " + err.Error()
	} else {
		e.Discovery = "answered " + describe(d.Status, d.Header, string(d.Body), nil)
	}
	return e
}

// sent names the request of an exchange: its JSON-RPC method, and the
// revision when it was a 2026-07-28 request.
func sent(ex wire.Exchange) string {
	var m struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal([]byte(ex.RequestBody), &m)
	if len(ex.RequestHeader[mcpclient.MethodHeader]) > 0 {
		return m.Method + " (MCP " + mcpclient.Modern + ")"
	}
	return m.Method
}

// describe renders an answer on one line, as every part of the harness
// does (wire.Describe), naming the body's media type for the person who
// must tell a web page from an API.
func describe(status int, header map[string][]string, body string, m *mcpclient.Message) string {
	a := mcpclient.AnswerOf(status, []byte(body), m)
	a.ContentType = wire.MediaType(http.Header(header).Get("Content-Type"))
	return wire.Describe(a)
}
