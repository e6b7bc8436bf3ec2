package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/conform-mcp/conform/impl/store"
)

// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document,
// which MCP's authorization rules ask authorization servers to support): a
// client_id that is an https URL names a JSON document, served there, that
// describes the client. The server fetches it when the client first asks
// for authorization and keeps it as a registration whose ID is the URL.

const (
	// cimdMaxBytes bounds a fetched document: a client description is a few
	// hundred bytes, and the server must not let a requester make it read
	// more (the draft's section 8.6 on abuse).
	cimdMaxBytes = 64 << 10
	// cimdTimeout bounds the whole fetch.
	cimdTimeout = 5 * time.Second
)

// isMetadataClientID says whether a client_id names a metadata document: an
// https URL with a path, and no fragment, credentials or dot segments.
func isMetadataClientID(id string) bool {
	u, err := url.Parse(id)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.User != nil || u.Fragment != "" || u.RawFragment != "" {
		return false
	}
	if u.Path == "" || u.Path == "/" {
		return false
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// metadataDocument is the part of a client metadata document the server uses.
type metadataDocument struct {
	ClientID                string   `json:"client_id"`
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
}

// cimdFetcher fetches documents from public addresses only: a requester must
// not be able to make the server reach its own network (server-side request
// forgery), so every address a name resolves to is checked at dial time,
// redirects are not followed, and the size and time are bounded.
type cimdFetcher struct {
	hc *http.Client
}

func newCIMDFetcher() *cimdFetcher {
	dialer := &net.Dialer{Timeout: cimdTimeout, Control: publicOnly}
	transport := &http.Transport{DialContext: dialer.DialContext, TLSHandshakeTimeout: cimdTimeout,
		ResponseHeaderTimeout: cimdTimeout, MaxResponseHeaderBytes: 16 << 10}
	return &cimdFetcher{hc: &http.Client{
		Transport:     transport,
		Timeout:       cimdTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// errPrivateAddress refuses a dial to an address that is not public.
var errPrivateAddress = errors.New("client metadata document on a non-public address")

// publicOnly is the dialer's check of the address actually dialled.
func publicOnly(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !publicAddress(ap.Addr()) {
		return errPrivateAddress
	}
	return nil
}

// notGlobal holds the special-purpose ranges (RFC 6890 and the IANA
// registries) that IsGlobalUnicast and IsPrivate let through, yet that reach
// no public host or, for the IPv6 prefixes that embed an IPv4 address, may
// reach a private one through a translator or relay.
var notGlobal = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network" (RFC 1122 section 3.2.1.3)
	netip.MustParsePrefix("100.64.0.0/10"),   // shared address space, carrier-grade NAT (RFC 6598)
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments (RFC 6890)
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking (RFC 2544)
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved (RFC 1112 section 4)
	netip.MustParsePrefix("::/96"),           // IPv4-compatible, ::a.b.c.d (RFC 4291 section 2.5.5.1)
	netip.MustParsePrefix("::ffff:0:0:0/96"), // IPv4-translated (RFC 2765 section 2.1)
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64 well-known prefix (RFC 6052)
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64 (RFC 8215)
	netip.MustParsePrefix("2001::/32"),       // Teredo (RFC 4380)
	netip.MustParsePrefix("2002::/16"),       // 6to4 (RFC 3056)
}

// publicAddress reports whether a is a global unicast address outside the
// private and special-purpose ranges. An IPv4-mapped address (::ffff:a.b.c.d)
// is judged as the IPv4 address it carries, and a zone is ignored.
func publicAddress(a netip.Addr) bool {
	a = a.Unmap().WithZone("")
	if !a.IsGlobalUnicast() || a.IsPrivate() {
		return false
	}
	for _, p := range notGlobal {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// fetch reads and checks the document a client_id names.
func (f *cimdFetcher) fetch(ctx context.Context, clientID string) (metadataDocument, error) {
	var doc metadataDocument
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, clientID, nil)
	if err != nil {
		return doc, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := f.hc.Do(req)
	if err != nil {
		return doc, fmt.Errorf("fetch the client metadata document: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return doc, fmt.Errorf("the client metadata document answered %d", resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, cimdMaxBytes+1))
	if err != nil {
		return doc, fmt.Errorf("read the client metadata document: %w", err)
	}
	if len(body) > cimdMaxBytes {
		return doc, fmt.Errorf("the client metadata document is larger than %d bytes", cimdMaxBytes)
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		return doc, fmt.Errorf("the client metadata document is not JSON: %w", err)
	}
	// The document must name itself, or anyone could claim another's URL.
	if doc.ClientID != clientID {
		return doc, fmt.Errorf("the client metadata document names client_id %q, not its own URL", doc.ClientID)
	}
	if len(doc.RedirectURIs) == 0 {
		return doc, errors.New("the client metadata document names no redirect_uris")
	}
	if why := checkRedirectURIs(doc.RedirectURIs); why != "" {
		return doc, fmt.Errorf("the client metadata document's %s", why)
	}
	// Only public clients: this server authenticates no client.
	if m := doc.TokenEndpointAuthMethod; m != "" && m != "none" {
		return doc, fmt.Errorf("token_endpoint_auth_method %q is not supported; only none", m)
	}
	return doc, nil
}

// ensureMetadataClient stores the client a metadata client_id describes,
// fetched anew when first seen, so that the authorization and the token
// request find it like any registration. A client_id that is not a metadata
// URL, or is already stored, is left alone. The fetch spends the requester's
// registration allowance, as a registration would.
func (s *Server) ensureMetadataClient(r *http.Request, clientID string) error {
	if !isMetadataClientID(clientID) {
		return nil
	}
	now := s.clock.Now()
	var known bool
	if err := s.store.View(func(tx *store.Tx) error {
		var err error
		_, known, err = lookupClient(tx, clientID, now)
		return err
	}); err != nil || known {
		return err
	}
	if ok, _ := s.registrations.allow(s.peerKey(r), now); !ok {
		return errors.New("too many client metadata fetches from this address")
	}
	doc, err := s.cimd.fetch(r.Context(), clientID)
	if err != nil {
		return err
	}
	c := store.Client{ID: clientID, Name: doc.ClientName, RedirectURIs: slices.Clone(doc.RedirectURIs),
		GrantTypes: []string{grantAuthCode, grantRefreshToken}, CreatedAt: now}
	return s.store.Update(func(tx *store.Tx) error { return tx.PutClient(c) })
}
