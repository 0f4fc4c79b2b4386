import { describe, expect, test } from "bun:test";
import { httpStatusError, jiraErrorMessages } from "../../src/jira/client.ts";

const purpose = { method: "GET", path: "/rest/api/2/issue/SHOP-1", notFound: "Issue SHOP-1 does not exist" };
const failure = { site: "https://jira.example.com", credentialSource: "$JIRA_PERSONAL_TOKEN" };

describe("jiraErrorMessages", () => {
  test("errorMessages, errors{} and message, deduplicated, cleaned and capped", () => {
    expect(
      jiraErrorMessages({
        errorMessages: ["One", "One", 7, "Two\nlines"],
        errors: { jql: "Bad" },
        message: "Gateway",
      }),
    ).toEqual(["One", "Two lines", "jql: Bad"]);
    expect(jiraErrorMessages({ errorMessages: ["x".repeat(1000)] })[0]?.length).toBe(300);
    expect(jiraErrorMessages("<html>")).toEqual([]);
    expect(jiraErrorMessages(null)).toEqual([]);
  });
});

describe("httpStatusError", () => {
  test.each([
    [400, "invalid_params"],
    [401, "credentials_invalid"],
    [403, "credentials_invalid"],
    [404, "not_found"],
    [409, "network_error"],
    [410, "unsupported_api"],
    [429, "rate_limited"],
    [500, "network_error"],
    [502, "network_error"],
    [503, "network_error"],
  ])("HTTP %d → %s", (status, code) => {
    expect(httpStatusError(status, purpose, {}, failure).code).toBe(code as never);
  });

  test("a 404 without a caller sentence points at JIRA_HOST", () => {
    const error = httpStatusError(404, { method: "GET", path: "/rest/api/2/serverInfo" }, null, failure);
    expect(error.message).toBe("Jira has no resource at GET /rest/api/2/serverInfo (HTTP 404)");
    expect(error.hint).toContain("JIRA_HOST (https://jira.example.com)");
  });

  test("a 400 about an unknown project is not_found when the caller names the project", () => {
    const body = { errorMessages: ["The value 'NOPE' does not exist for the field 'project'."] };
    const error = httpStatusError(400, { ...purpose, unknownProject: "Project NOPE does not exist" }, body, failure);
    expect(error.code).toBe("not_found");
    expect(httpStatusError(400, purpose, body, failure).code).toBe("invalid_params");
  });

  test("429 mentions Retry-After when known", () => {
    expect(httpStatusError(429, purpose, null, failure, { retryAfterSeconds: 30 }).message).toBe(
      "Jira at https://jira.example.com is rate limiting requests (HTTP 429 on GET /rest/api/2/issue/SHOP-1); it asks to retry after 30 s",
    );
  });
});
