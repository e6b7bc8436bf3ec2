package clientsteps

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/cucumber/godog"

	"github.com/conform-mcp/conform/harness/scripted"
	"github.com/conform-mcp/conform/harness/wire"
)

// The judgements of how a client names itself: by a client ID metadata
// document (Client Registration, section 1), by a client registered
// beforehand (section 2), or by registering (section 3), in the priority
// order the page's introduction gives. A client that never names itself by
// a metadata document leaves the document's scenarios not applicable.
func (st *scenario) registerDocuments(sc *godog.ScenarioContext) {
	sc.Step(`^every client_id the client presented as a URL is an https URL with a path$`, st.judged(st.documentURL))
	sc.Step(`^the document each such client_id names holds that client_id exactly, a client_name and redirect_uris$`, st.judged(st.documentContent))
	sc.Step(`^the client named itself by the client it was given rather than registering dynamically$`, st.judged(st.givenClientUsed))
	sc.Step(`^the client named itself by no client ID metadata document$`, st.judged(st.noDocumentUnadvertised))
}

// documentLimit bounds what is read of a client ID metadata document.
const documentLimit = 64 << 10

// presentedClientIDs are the client_ids the client sent srv's
// authorization server, in authorization and token requests, each once, in
// the order first sent, with the request that first carried it.
func presentedClientIDs(reqs []scripted.Request, srv *scripted.Server) ([]string, map[string]scripted.Request) {
	var ids []string
	first := map[string]scripted.Request{}
	for _, r := range reqs {
		var id string
		switch {
		case isAuthorization(r, srv):
			id = r.URL.Query().Get("client_id")
		case isToken(r, srv) && r.Form != nil:
			id = r.Form.Get("client_id")
		}
		if id == "" || slices.Contains(ids, id) {
			continue
		}
		ids = append(ids, id)
		first[id] = r
	}
	return ids, first
}

// urlFormatted says whether a client_id is URL-formatted, as an
// authorization server that takes client ID metadata documents tells them
// apart (Client Registration 1.1: "URL-formatted client_ids"): an absolute
// http or https URL with a host.
func urlFormatted(id string) bool {
	u, err := url.Parse(id)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

// namesDocument says whether a client_id the client sent names a client ID
// metadata document: it is URL-formatted, and not the client the profile
// says was registered beforehand, which the authorization server knows by
// that ID whatever its form.
func (s *suite) namesDocument(id string) bool {
	return urlFormatted(id) && id != s.cfg.Preregistered.ID
}

// documentIDs are the URL-formatted client_ids the client presented to the
// first scripted server, or a not-applicable skip when it presented none.
func (st *scenario) documentIDs() ([]string, map[string]scripted.Request, error) {
	ids, first := presentedClientIDs(st.log.Requests(), st.first())
	ids = slices.DeleteFunc(ids, func(id string) bool { return !st.namesDocument(id) })
	if len(ids) == 0 {
		return nil, nil, st.unseen("not applicable: the client named itself by no client ID metadata document (no client_id it sent is a URL)")
	}
	return ids, first, nil
}

// documentURL: "The client_id URL MUST use the "https" scheme and contain a
// path component" and "Clients MUST host their metadata document at an
// HTTPS URL" (Client Registration 1.1).
func (st *scenario) documentURL() error {
	ids, first, err := st.documentIDs()
	if err != nil {
		return err
	}
	for _, id := range ids {
		u, _ := url.Parse(id)
		if u.Scheme != "https" || u.Path == "" {
			return st.depart("client ID metadata document URL", "an https URL with a path component", id, first[id])
		}
	}
	return nil
}

// documentContent: "The metadata document MUST include at least the
// following properties: client_id, client_name, redirect_uris" and
// "Clients MUST ensure the client_id value in the metadata matches the
// document URL exactly" (Client Registration 1.1). A document conform
// cannot reach leaves the scenario not run: the network between conform
// and the client's host is no departure of the client's.
func (st *scenario) documentContent() error {
	ids, first, err := st.documentIDs()
	if err != nil {
		return err
	}
	for _, id := range ids {
		ex, doc, err := st.fetchDocument(id)
		if err != nil {
			return st.skip(fmt.Sprintf("the client ID metadata document %s could not be fetched: %v", id, err))
		}
		if problem := documentProblem(id, ex.Status, doc); problem != "" {
			return st.departWith("client ID metadata document", "a JSON object whose client_id is "+id+", with a client_name and redirect_uris",
				problem, []wire.Exchange{ex}, first[id])
		}
	}
	return nil
}

// documentProblem is what a fetched document lacks, or "".
func documentProblem(id string, status int, body []byte) string {
	if status != http.StatusOK {
		return fmt.Sprintf("HTTP %d", status)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(body, &doc); err != nil {
		return "a body that is no JSON object"
	}
	var got string
	if json.Unmarshal(doc["client_id"], &got) != nil || got != id {
		return fmt.Sprintf("client_id %s", orNone(doc["client_id"]))
	}
	// "include" asks for the members, as RFC 7591 2 types them (a string,
	// an array of strings), not for any value in them.
	var name string
	if doc["client_name"] == nil || string(doc["client_name"]) == "null" || json.Unmarshal(doc["client_name"], &name) != nil {
		return fmt.Sprintf("client_name %s", orNone(doc["client_name"]))
	}
	var uris []string
	if doc["redirect_uris"] == nil || json.Unmarshal(doc["redirect_uris"], &uris) != nil || uris == nil {
		return fmt.Sprintf("redirect_uris %s", orNone(doc["redirect_uris"]))
	}
	return ""
}

// orNone shows a member as the document has it, or says it has none.
func orNone(raw json.RawMessage) string {
	if raw == nil {
		return "missing"
	}
	return string(raw)
}

// fetchDocument fetches a client ID metadata document as the scripted
// authorization servers do, and returns the exchange and its body.
func (st *scenario) fetchDocument(id string) (wire.Exchange, []byte, error) {
	hc := st.cfg.Documents
	if hc == nil {
		hc = http.DefaultClient
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return wire.Exchange{}, nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return wire.Exchange{}, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, documentLimit))
	if err != nil {
		return wire.Exchange{}, nil, err
	}
	return wire.Record(req, nil, resp, body, nil), body, nil
}

// givenClientUsed: "Clients supporting all options SHOULD use the following
// priority order: 1. Use pre-registered client information for the server
// if the client has it available 2. Use Client ID Metadata Documents if the
// Authorization Server indicates that it supports them ... 3. Use Dynamic
// Client Registration as a fallback" (Client Registration, introduction).
// Which options a client has is known only from the profile
// (Config.Preregistered, Config.MetadataURL); the scripted authorization
// server supports all three.
func (st *scenario) givenClientUsed() error {
	given := st.cfg.Preregistered.ID
	if given == "" {
		given = st.cfg.MetadataURL
	}
	if given == "" {
		return st.skip("not applicable: the profile names no client registered beforehand and no client ID metadata document (client.client_id, client.client_metadata_url), so which ways of naming itself the client has is not known")
	}
	srv := st.first()
	if regs := registrations(st.log.Requests(), srv); len(regs) > 0 {
		return st.depart("registration priority", "no dynamic registration: the client has "+given, "a registration request", regs[0])
	}
	ids, first := presentedClientIDs(st.log.Requests(), srv)
	if len(ids) == 0 {
		return st.unseen("the client sent the authorization server no client_id")
	}
	// The order is of ways, not of IDs: a document named where a client
	// registered beforehand was given departs from it; another ID of the
	// way given is the profile's to say, never the client's departure.
	for _, id := range ids {
		switch {
		case id == given:
		case st.cfg.Preregistered.ID != "" && st.namesDocument(id):
			return st.depart("registration priority", "client_id "+given+", the client registered beforehand, before a client ID metadata document", "client_id "+id, first[id])
		case st.cfg.MetadataURL != "" && st.namesDocument(id):
		default:
			return st.skip(fmt.Sprintf("the client named itself by client_id %s, not the profile's %s (client.client_id or client.client_metadata_url): check the profile", id, given))
		}
	}
	return nil
}

// noDocumentUnadvertised: "MCP clients SHOULD check for this capability
// [client_id_metadata_document_supported] and MAY fall back to Dynamic
// Client Registration or pre-registration if unavailable" (Client
// Registration 1.4). Judged only for a client seen naming itself by a
// document against the compliant server of this run's control.
func (st *scenario) noDocumentUnadvertised() error {
	if st.controlDocument == "" {
		return st.skip("not applicable: against the compliant server of this run's control the client named itself by no client ID metadata document")
	}
	srv := st.first()
	ids, first := presentedClientIDs(st.log.Requests(), srv)
	for _, id := range ids {
		if st.namesDocument(id) {
			return st.depart("client ID metadata document support", "no URL client_id: the authorization server metadata has no client_id_metadata_document_supported",
				"client_id "+id, first[id])
		}
	}
	// Naming no document passes only once the client was seen to read the
	// metadata that lacks the capability, of its own accord: a client that
	// crashed or stopped before it shows nothing of the check.
	read := slices.ContainsFunc(st.log.Requests(), func(r scripted.Request) bool { return isServerMetadata(r, srv) && r.Status == http.StatusOK })
	return st.stopped("it read the authorization server metadata", read)
}
