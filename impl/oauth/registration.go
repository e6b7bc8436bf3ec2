package oauth

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"slices"

	"github.com/conform-mcp/conform/impl/store"
)

// Grant types this server supports (source section 4).
const (
	grantDevice       = "urn:ietf:params:oauth:grant-type:device_code"
	grantDeviceShort  = "device_code"
	grantAuthCode     = "authorization_code"
	grantRefreshToken = "refresh_token"
)

var supportedGrants = []string{grantDevice, grantAuthCode, grantRefreshToken}

// maxClientName bounds client_name; the consent page shows it.
const maxClientName = 200

// registrationResponse is the RFC 7591 section 3.2.1 answer.
type registrationResponse struct {
	ClientID                string   `json:"client_id"`
	ClientIDIssuedAt        int64    `json:"client_id_issued_at"`
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	ClientName              string   `json:"client_name,omitempty"`
}

// handleRegister is POST /oauth/register: dynamic client registration
// (RFC 7591 section 3), with the redirect URI rules and error texts of source
// sections 4 and 7.3. Every client is public (token_endpoint_auth_method
// "none"): the host's clients are agents and native apps that cannot keep a
// secret, which is why the device grant and PKCE carry the proof instead.
func (s *Server) handleRegister(w http.ResponseWriter, r *http.Request) {
	client, oerr := s.parseRegistration(w, r)
	if oerr != nil {
		writeError(w, oerr)
		return
	}
	now := s.clock.Now()
	// Only a request that would create a registration spends the address's
	// allowance; a refused request costs nothing (source section 7.3 notes).
	if ok, wait := s.registrations.allow(s.peerKey(r), now); !ok {
		tooMany(w, wait, "Too many registrations from this address; register once and keep the client_id")
		return
	}
	s.maybeSweep(now)
	client.ID = randomString(16)
	client.CreatedAt = now
	// Journalled, not committed: a registration costs one synced line
	// (store.Register).
	err := s.store.Register(client)
	if errors.Is(err, store.ErrFoldDeferred) {
		// The registration stands: answered as made, so that the client
		// keeps the client_id it holds.
		s.log.Warn("register client", "client_id", client.ID, "err", err)
		err = nil
	}
	if err != nil {
		s.log.Error("register client", "err", err)
		writeError(w, serverError(err))
		return
	}
	s.log.Info("client registered", "client_id", client.ID, "client_name", client.Name)
	writeJSON(w, http.StatusCreated, registrationResponse{
		ClientID:                client.ID,
		ClientIDIssuedAt:        now.Unix(),
		RedirectURIs:            client.RedirectURIs,
		TokenEndpointAuthMethod: "none",
		GrantTypes:              client.GrantTypes,
		ResponseTypes:           []string{"code"},
		ClientName:              client.Name,
	})
}

// parseRegistration validates the client metadata (RFC 7591 section 2).
// Unknown metadata is ignored, as section 2 requires; metadata the server
// does not support is replaced (token_endpoint_auth_method is always "none"),
// which section 3.2.1 allows.
func (s *Server) parseRegistration(w http.ResponseWriter, r *http.Request) (store.Client, *oauthError) {
	// RFC 7591 section 3.1: the client "sends an HTTP POST ... with a
	// content type of application/json". Holding to it means a cross-site
	// HTML form, which can only send form or text bodies, cannot register.
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return store.Client{}, badRequest(errInvalidClientMetadata,
			"Content-Type must be application/json (RFC 7591 section 3.1)")
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		if _, tooLarge := errors.AsType[*http.MaxBytesError](err); tooLarge {
			return store.Client{}, badRequest(errInvalidClientMetadata, "Request body too large")
		}
		return store.Client{}, badRequest(errInvalidClientMetadata, "Could not read the request body")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil || fields == nil {
		return store.Client{}, badRequest(errInvalidClientMetadata, "Request body must be a JSON object")
	}
	if name, dup := duplicateMember(body); dup {
		if !plainName(name) {
			name = "A member"
		}
		return store.Client{}, badRequest(errInvalidClientMetadata, name+" appears more than once in one object")
	}
	var c store.Client

	raw, present := fields["redirect_uris"]
	if !present || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return c, badRequest(errInvalidRedirectURI, "Missing redirect_uris")
	}
	if err := json.Unmarshal(raw, &c.RedirectURIs); err != nil {
		return c, badRequest(errInvalidClientMetadata, "redirect_uris must be an array of strings")
	}
	if len(c.RedirectURIs) == 0 {
		return c, badRequest(errInvalidRedirectURI, "Missing redirect_uris")
	}
	if why := checkRedirectURIs(c.RedirectURIs); why != "" {
		return c, badRequest(errInvalidRedirectURI, why)
	}

	if raw, ok := fields["client_name"]; ok {
		if err := json.Unmarshal(raw, &c.Name); err != nil {
			return c, badRequest(errInvalidClientMetadata, "client_name must be a string")
		}
		if len(c.Name) > maxClientName {
			return c, badRequest(errInvalidClientMetadata, "client_name is longer than 200 bytes")
		}
	}

	c.GrantTypes = slices.Clone(supportedGrants)
	if raw, ok := fields["grant_types"]; ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		var asked []string
		if err := json.Unmarshal(raw, &asked); err != nil {
			return c, badRequest(errInvalidClientMetadata, "grant_types must be an array of strings")
		}
		c.GrantTypes = nil
		for _, g := range supportedGrants {
			if slices.Contains(asked, g) || (g == grantDevice && slices.Contains(asked, grantDeviceShort)) {
				c.GrantTypes = append(c.GrantTypes, g)
			}
		}
		if len(c.GrantTypes) == 0 {
			return c, badRequest(errInvalidClientMetadata,
				"grant_types must include urn:ietf:params:oauth:grant-type:device_code, authorization_code or refresh_token")
		}
	}

	for _, name := range []string{"token_endpoint_auth_method", "scope", "client_uri", "logo_uri"} {
		if raw, ok := fields[name]; ok {
			var v *string
			if err := json.Unmarshal(raw, &v); err != nil {
				return c, badRequest(errInvalidClientMetadata, name+" must be a string")
			}
		}
	}
	return c, nil
}
