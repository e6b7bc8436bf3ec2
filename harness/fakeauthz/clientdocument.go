package fakeauthz

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"time"
)

// documentLimit bounds a client ID metadata document the fake reads.
const documentLimit = 64 << 10

// clientDocument fetches the client ID metadata document a URL-formatted
// client_id names, as the fake advertises it does
// (client_id_metadata_document_supported; Client Registration, "Client ID
// Metadata Documents": "SHOULD fetch metadata documents when encountering
// URL-formatted client_ids"), and returns its redirect URIs, against which
// the authorization request's is then checked ("MUST validate redirect URIs
// presented in an authorization request against those in the metadata
// document"). A document whose client_id is not its own URL is no client.
// The URL is https, or http on a loopback host, where a test's document is;
// hc fetches it (nil for http.DefaultClient).
func clientDocument(ctx context.Context, hc *http.Client, clientID string) ([]string, bool) {
	u, err := url.Parse(clientID)
	if err != nil || u.Host == "" || (u.Scheme != "https" && !(u.Scheme == "http" && loopbackHost(u.Hostname()))) {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, clientID, nil)
	if err != nil {
		return nil, false
	}
	req.Header.Set("Accept", "application/json")
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, false
	}
	defer resp.Body.Close()
	var doc struct {
		ClientID     string   `json:"client_id"`
		RedirectURIs []string `json:"redirect_uris"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(io.LimitReader(resp.Body, documentLimit)).Decode(&doc) != nil ||
		doc.ClientID != clientID || len(doc.RedirectURIs) == 0 || slices.Contains(doc.RedirectURIs, "") {
		return nil, false
	}
	return doc.RedirectURIs, true
}

// loopbackHost says whether h names the loopback interface.
func loopbackHost(h string) bool {
	ip := net.ParseIP(h)
	return h == "localhost" || (ip != nil && ip.IsLoopback())
}
