package oauth

import (
	"crypto/hmac"
	_ "embed"
	"encoding/base64"
	"html/template"
	"net/http"

	"github.com/conform-mcp/conform/impl/role"
	"github.com/conform-mcp/conform/impl/store"
)

// The consent page is self-contained: inline style, no script, no external
// asset, so it works offline and under a strict Content-Security-Policy.
// Element ids are a contract with the browser test and the harness:
//
//	code entry page:  #user_code (input), #continue (submit)
//	consent page:     #role (select), #approve and #deny (submit buttons,
//	                  name "action"), #client_name, #client_id, #redirect_uris,
//	                  #confirm_code (device flow)
//	result page:      #message
//
// The consent form posts user_code (device flow), role, action and csrf.
// Each hidden field is written exactly as
// <input type="hidden" name="NAME" value="VALUE">, so a program can approve a
// device code without a browser: GET {base}/oauth/device?user_code=CODE, copy
// the hidden fields (user_code, csrf), and POST them as a form to
// {base}/oauth/device with role=owner and action=approve.
//
//go:embed consent.html
var consentHTML string

var consentPage = template.Must(template.New("consent").Parse(consentHTML))

// page is what consent.html renders.
type page struct {
	Title   string
	Message string
	Error   bool
	// Entry shows the code entry form, prefilled with UserCode.
	Entry    bool
	UserCode string
	Consent  *consentView
}

// consentView shows the client asking for access and the approval form.
type consentView struct {
	Action       string
	UserCode     string
	ClientName   string
	ClientID     string
	RedirectURIs []string
	Hidden       []hiddenField
	Roles        []string
}

type hiddenField struct{ Name, Value string }

func newConsentView(action string, c store.Client, hidden ...hiddenField) *consentView {
	return &consentView{Action: action, ClientName: c.Name, ClientID: c.ID,
		RedirectURIs: c.RedirectURIs, Hidden: hidden, Roles: role.Names}
}

// writePage renders p. Consent pages must never be framed by another site
// (clickjacking, RFC 6749 section 10.13) nor cached.
func writePage(w http.ResponseWriter, status int, p page) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	_ = consentPage.Execute(w, p)
}

// csrfToken ties a consent form to what it approves: an HMAC under the
// instance secret over the label and values, so a decision can only be
// posted with a token this instance put in a page it rendered.
func (s *Server) csrfToken(label string, values ...string) string {
	return base64.RawURLEncoding.EncodeToString(s.mac(label, values...))
}

// csrfValid compares in constant time.
func (s *Server) csrfValid(got, label string, values ...string) bool {
	return hmac.Equal([]byte(got), []byte(s.csrfToken(label, values...)))
}

const csrfDevice = "device-consent"

// readConsentForm parses a consent form post within the body bound.
func readConsentForm(w http.ResponseWriter, r *http.Request) bool {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		writePage(w, http.StatusBadRequest, page{Title: "Request not understood", Error: true,
			Message: "The form could not be read. Go back and try again."})
		return false
	}
	return true
}

// handleDevicePage is GET /oauth/device, the verification URI (RFC 8628
// section 3.3). Without a code it asks for one; with the code of a pending
// request it shows the client and the approval form.
func (s *Server) handleDevicePage(w http.ResponseWriter, r *http.Request) {
	entry := page{Title: "Connect a device", Entry: true}
	raw := r.URL.Query().Get("user_code")
	if raw == "" {
		writePage(w, http.StatusOK, entry)
		return
	}
	userCode := normalizeUserCode(raw)
	now := s.clock.Now()
	var client store.Client
	var ok bool
	err := s.store.View(func(tx *store.Tx) error {
		_, dc, found, err := tx.DeviceCodeByUserCode(userCode)
		if err != nil || !found || !now.Before(dc.ExpiresAt) || dc.Status != store.DevicePending {
			return err
		}
		client, ok, err = lookupClient(tx, dc.ClientID, now)
		return err
	})
	if err != nil {
		s.log.Error("show device consent", "err", err)
		writePage(w, http.StatusInternalServerError, page{Title: "Something went wrong", Error: true,
			Message: "The request could not be loaded. Try again."})
		return
	}
	if !ok {
		entry.Error = true
		entry.Message = "This code is unknown, has expired, or was already used. Check the code, or start again on your device."
		entry.UserCode = raw
		writePage(w, http.StatusBadRequest, entry)
		return
	}
	view := newConsentView("device", client,
		hiddenField{"user_code", userCode},
		hiddenField{"csrf", s.csrfToken(csrfDevice, userCode)})
	view.UserCode = userCode
	writePage(w, http.StatusOK, page{Title: "Approve access", Consent: view})
}

// handleDeviceDecision is POST /oauth/device: the person's approval or denial,
// with the role they chose.
func (s *Server) handleDeviceDecision(w http.ResponseWriter, r *http.Request) {
	if !readConsentForm(w, r) {
		return
	}
	userCode := normalizeUserCode(r.PostForm.Get("user_code"))
	roleName, action := r.PostForm.Get("role"), r.PostForm.Get("action")
	if !s.csrfValid(r.PostForm.Get("csrf"), csrfDevice, userCode) {
		writePage(w, http.StatusForbidden, page{Title: "Request not accepted", Error: true,
			Message: "This form has expired or did not come from this host. Open the verification page again."})
		return
	}
	if !role.Known(roleName) || (action != "approve" && action != "deny") {
		writePage(w, http.StatusBadRequest, page{Title: "Request not understood", Error: true,
			Message: "Choose a role and press Approve or Deny."})
		return
	}
	now := s.clock.Now()
	var known bool
	err := s.store.Update(func(tx *store.Tx) error {
		d, dc, found, err := tx.DeviceCodeByUserCode(userCode)
		if err != nil || !found || !now.Before(dc.ExpiresAt) || dc.Status != store.DevicePending {
			return err
		}
		known = true
		dc.Status, dc.Role = store.DeviceDenied, ""
		if action == "approve" {
			dc.Status, dc.Role = store.DeviceApproved, roleName
		}
		return tx.PutDeviceCode(d, dc)
	})
	switch {
	case err != nil:
		s.log.Error("record device consent", "err", err)
		writePage(w, http.StatusInternalServerError, page{Title: "Something went wrong", Error: true,
			Message: "Your decision could not be recorded. Try again."})
	case !known:
		writePage(w, http.StatusBadRequest, page{Title: "Code not valid", Error: true, Entry: true,
			Message: "This code is unknown, has expired, or was already used. Start again on your device."})
	case action == "approve":
		writePage(w, http.StatusOK, page{Title: "Access approved",
			Message: "You approved access as " + roleName + ". You can return to your device."})
	default:
		writePage(w, http.StatusOK, page{Title: "Access denied",
			Message: "You denied access. The device will not be connected."})
	}
}
