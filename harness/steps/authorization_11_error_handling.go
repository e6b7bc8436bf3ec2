package steps

import (
	"fmt"
	"strings"
)

// statusOfError is the status RFC 6750 3.1 (and OAuth 2.1 5.3.2) gives each
// error code of a Bearer challenge: "invalid_request: The resource server
// SHOULD respond with the HTTP 400 (Bad Request) status code", invalid_token
// 401, insufficient_scope 403.
var statusOfError = map[string]int{"invalid_request": 400, "invalid_token": 401, "insufficient_scope": 403}

// errorCodeAgrees is CHAL-5: the last reply's status is the one its Bearer
// challenge's error code goes with. A reply without a Bearer challenge, or
// whose challenge names none of these codes, has nothing to judge: whether
// it should name one is CHAL-2's and CHAL-3's.
func (st *authzState) errorCodeAgrees() error {
	h, c, err := st.challengeToRead()
	if err != nil {
		return err
	}
	code := c.Params["error"]
	want, known := statusOfError[code]
	if !known {
		return st.skip(fmt.Sprintf("the challenge names no error code of RFC 6750 3.1 (error=%q), so there is no status to match it with (CHAL-2 and CHAL-3 judge the error code)", code))
	}
	if h.status != want {
		return st.depart(fmt.Sprintf("status of a challenge with error=%q (RFC 6750 3.1, OAuth 2.1 5.3.2)", code), want,
			fmt.Sprintf("%s with %s", h.describe(), strings.Join(h.header.Values("WWW-Authenticate"), ", ")), h.lastExchange())
	}
	return nil
}
