package clientsteps

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("a client ID metadata document", func() {
	const id = "https://app.example.com/oauth/client.json"
	DescribeTable("includes client_id (its URL exactly), client_name and redirect_uris",
		func(status int, body, problem string) {
			Expect(documentProblem(id, status, []byte(body))).To(Equal(problem))
		},
		Entry("every member", 200, `{"client_id":"`+id+`","client_name":"app","redirect_uris":["http://127.0.0.1/cb"]}`, ""),
		Entry("members with no value in them, which the sentence does not ask for", 200, `{"client_id":"`+id+`","client_name":"","redirect_uris":[]}`, ""),
		Entry("another client_id", 200, `{"client_id":"https://app.example.com/","client_name":"app","redirect_uris":[]}`, `client_id "https://app.example.com/"`),
		Entry("no client_name", 200, `{"client_id":"`+id+`","redirect_uris":[]}`, "client_name missing"),
		Entry("a null client_name", 200, `{"client_id":"`+id+`","client_name":null,"redirect_uris":[]}`, "client_name null"),
		Entry("redirect_uris no array", 200, `{"client_id":"`+id+`","client_name":"app","redirect_uris":"http://127.0.0.1/cb"}`, `redirect_uris "http://127.0.0.1/cb"`),
		Entry("no JSON object", 200, `[]`, "a body that is no JSON object"),
		Entry("no document", 404, ``, "HTTP 404"),
	)
})
