package oauth

import (
	_ "embed"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/conform-mcp/conform/impl/role"
	"github.com/conform-mcp/conform/impl/store"
)

// The consent page is self-contained: inline style, no script, no external
// asset, so it works offline and under a strict Content-Security-Policy.
// Element ids are a contract with the browser test and the harness:
//
//	sign-in page:     #owner_secret (password input), #sign_in (submit)
//	code entry page:  #user_code (input), #continue (submit)
//	consent page:     #role (select), #approve and #deny (submit buttons,
//	                  name "action"), #client_name, #client_id, #redirect_uris,
//	                  #confirm_code (device flow), #scope (when the client
//	                  asked for scopes; #role then offers the narrowest role
//	                  that grants them first)
//	result page:      #message
//
// Every consent page first asks for the owner secret (owner.go): the sign-in
// form posts secret and return to {base}/oauth/login, which sets the session
// cookie and sends the person back. The consent form then posts user_code
// (device flow), role, action and csrf. Each hidden field is written exactly
// as <input type="hidden" name="NAME" value="VALUE">, so a program holding
// the owner secret can approve without a browser (ApproveDevice).
//
//go:embed consent.html
var consentHTML string

var consentPage = template.Must(template.New("consent").Parse(consentHTML))

// page is what consent.html renders.
type page struct {
	Title   string
	Message string
	Error   bool
	// Login shows the owner sign-in form.
	Login *loginView
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
	// Scope is what the client asked for, if anything this host knows;
	// Selected, the role offered first: the narrowest that grants it.
	Scope    string
	Selected string
}

type hiddenField struct{ Name, Value string }

func newConsentView(action string, c store.Client, scope string, hidden ...hiddenField) *consentView {
	return &consentView{Action: action, ClientName: c.Name, ClientID: c.ID,
		RedirectURIs: c.RedirectURIs, Hidden: hidden, Roles: role.Names,
		Scope: strings.Join(role.Requested(scope), " "), Selected: role.ForScope(scope)}
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

// notAccepted is the page of a consent post without a valid session or form.
var notAccepted = page{Title: "Request not accepted", Error: true,
	Message: "This form has expired, was already used, or did not come from this host. Open the page again."}

// failed is the page of a store failure.
func failed(w http.ResponseWriter, err error) {
	writePage(w, failedStatus(w, err), page{Title: "Something went wrong", Error: true,
		Message: "The request could not be completed. Try again."})
}

// handleDevicePage is GET /oauth/device, the verification URI (RFC 8628
// section 3.3). It first asks for the owner secret; once signed in, without
// a code it asks for one, and with the code of a pending request it shows
// the client and the approval form. A code that matches no pending request
// is a wrong try, whether signed in or not (RFC 8628 section 5.1), though
// only a signed-in owner is told so.
func (s *Server) handleDevicePage(w http.ResponseWriter, r *http.Request) {
	now := s.clock.Now()
	if s.refuseThrottled(w, r, now) {
		return
	}
	raw := r.URL.Query().Get("user_code")
	var client store.Client
	var scope string
	var pending bool
	userCode := normalizeUserCode(raw)
	if raw != "" {
		if err := s.store.View(func(tx *store.Tx) error {
			var err error
			client, scope, pending, err = pendingDevice(tx, userCode, now)
			return err
		}); err != nil {
			s.log.Error("show device consent", "err", err)
			failed(w, err)
			return
		}
		if !pending {
			s.wrongTry(r, now, "")
		}
	}
	session, signedIn := s.ownerSession(r)
	if !signedIn {
		askOwner(w, r)
		return
	}
	entry := page{Title: "Connect a device", Entry: true}
	if raw == "" {
		writePage(w, http.StatusOK, entry)
		return
	}
	if !pending {
		entry.Error = true
		entry.Message = "This code is unknown, has expired, or was already used. Check the code, or start again on your device."
		entry.UserCode = raw
		writePage(w, http.StatusBadRequest, entry)
		return
	}
	csrf, err := s.newForm(session, deviceBinding(userCode))
	if err != nil {
		s.log.Error("show device consent", "err", err)
		failed(w, err)
		return
	}
	view := newConsentView("device", client, scope, hiddenField{"user_code", userCode}, hiddenField{"csrf", csrf})
	view.UserCode = userCode
	writePage(w, http.StatusOK, page{Title: "Approve access", Consent: view})
}

// pendingDevice returns the client and the requested scope of the pending
// device authorization with the given user code, if there is one still
// inside its window.
func pendingDevice(tx *store.Tx, userCode string, now time.Time) (store.Client, string, bool, error) {
	_, dc, found, err := tx.DeviceCodeByUserCode(userCode)
	if err != nil || !found || !now.Before(dc.ExpiresAt) || dc.Status != store.DevicePending {
		return store.Client{}, "", false, err
	}
	c, ok, err := lookupClient(tx, dc.ClientID, now)
	return c, dc.Scope, ok, err
}

// deviceBinding is what a device consent form decides: one user code.
func deviceBinding(userCode string) string { return "device:" + userCode }

// handleDeviceDecision is POST /oauth/device: the owner's approval or denial,
// with the role they chose. It needs a same-origin request, the owner's
// session, and a form rendered for that session and that code, once.
func (s *Server) handleDeviceDecision(w http.ResponseWriter, r *http.Request) {
	now := s.clock.Now()
	if s.refuseThrottled(w, r, now) || !readConsentForm(w, r) {
		return
	}
	userCode := normalizeUserCode(r.PostForm.Get("user_code"))
	roleName, action := r.PostForm.Get("role"), r.PostForm.Get("action")
	if !s.sameOrigin(r) {
		s.wrongTry(r, now, userCode)
		writePage(w, http.StatusForbidden, crossSite)
		return
	}
	session, signedIn := s.ownerSession(r)
	if !signedIn {
		s.wrongTry(r, now, userCode)
		writePage(w, http.StatusForbidden, page{Title: "Sign in as the owner", Error: true,
			Message: "Only the owner of this host may approve. Sign in and try again.",
			Login:   &loginView{Return: "/oauth/device?user_code=" + url.QueryEscape(userCode)}})
		return
	}
	if !role.Known(roleName) || (action != "approve" && action != "deny") {
		writePage(w, http.StatusBadRequest, page{Title: "Request not understood", Error: true,
			Message: "Choose a role and press Approve or Deny."})
		return
	}
	var formOK, known bool
	err := s.store.Update(func(tx *store.Tx) error {
		var err error
		if formOK, err = spendForm(tx, r.PostForm.Get("csrf"), session, deviceBinding(userCode), now); err != nil || !formOK {
			return err
		}
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
		failed(w, err)
	case !formOK:
		s.wrongTry(r, now, userCode)
		writePage(w, http.StatusForbidden, notAccepted)
	case !known:
		s.wrongTry(r, now, "")
		writePage(w, http.StatusBadRequest, page{Title: "Code not valid", Error: true, Entry: true,
			Message: "This code is unknown, has expired, or was already used. Start again on your device."})
	case action == "approve":
		s.log.Info("device sign-in approved", "role", roleName)
		writePage(w, http.StatusOK, page{Title: "Access approved",
			Message: "You approved access as " + roleName + ". You can return to your device."})
	default:
		writePage(w, http.StatusOK, page{Title: "Access denied",
			Message: "You denied access. The device will not be connected."})
	}
}
