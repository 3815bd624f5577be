/** The help text of `kyc-sandbox`. */
export const USAGE = `Usage: kyc-sandbox <command> [options]

Commands:
  start                         Run the sandbox (service API, sandbox API, dashboard, webhook delivery)
    --port <n>                  Port to listen on (default 8080; 0 picks a free one)
    --host <address>            Address to listen on (default 127.0.0.1)
    --data-dir <folder>         Where the SQLite files live (default ./kyc-sandbox-data)
    --time-scale <n>            Run the retry schedule n times faster (1-600; 60 = retries after 1 s, 5 s, 15 s)
    --allow-loopback-targets    DANGER: let webhook URLs point at 127.0.0.0/8 and ::1 (local receivers only)
    --trust-ca <file>           Trust this CA certificate (PEM) when delivering (e.g. a local self-signed receiver)
    --https                     Serve over HTTPS with a self-signed certificate made at start; its file
                                (printed) is what clients trust with NODE_EXTRA_CA_CERTS
    --log-format <text|json>    json: one JSON object per line, with trace_id and span_id (default text)
                                Also serves /healthz, /readyz and /metrics (Prometheus); exports
                                traces and metrics by the standard OTEL_* variables
                                (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_SERVICE_NAME, OTEL_SDK_DISABLED…)

  user add <name>               Issue a user (password typed hidden, piped on stdin, or --password)
    --password <password>       The password (prefer stdin: command lines are visible to other users)
    --company <name>            The user's company (default "Sandbox Company")
    --data-dir <folder>         As for start

  check-endpoint <url>          Send sample deliveries to your endpoint and report what it gets wrong
    --auth-key <key>            The Auth Key your endpoint expects (or set KYC_AUTH_KEY)
    --signing-secret <whsec_…>  Sign every probe, and check that a wrong signature and a stale
                                timestamp get 401 (or set KYC_SIGNING_SECRETS)
    --ca <file>                 Trust this CA certificate (PEM) for the endpoint
    --allow-loopback            Allow an endpoint on this machine (127.0.0.0/8, ::1)

  login                         Log in to a sandbox once; listen and trigger then need no password
    --service <url>             The sandbox (or set KYC_SANDBOX_URL; default http://127.0.0.1:8080)
    --user <name>               A dashboard user of the sandbox (or set KYC_SANDBOX_USER); the password comes
                                from KYC_SANDBOX_PASSWORD, a hidden prompt, or the first line of stdin.
                                Saves a token (never the password) to ~/.config/kyc-sandbox/login.json
  logout                        Revoke and forget the saved login

  listen                        Forward your company's webhooks to a server on this machine (no public URL needed)
    --forward-to <url>          Where to POST them: http://localhost:3000/webhooks/kyc (loopback only; http or https)
    --user, --service           As for login, to act without the saved login

  trigger <status>              Finish a sample session now, so its webhook flows: approved, rejected, pending, error
    --shape <v1|status|both>    The payload shape (default both)
    --user, --service           As for login, to act without the saved login

  signing-secret <action>       Your company's webhook signing secret (Standard Webhooks), as in Settings:
                                show, create, rotate, end-overlap (the old secret stops now), remove, and
                                reveal (the only one that prints a secret; asks for your password again)
    --overlap-hours <n>         rotate: how long the old secret keeps signing beside the new (0-168, default 24)
    --user, --service           As for login, to act without the saved login

  secrets-key rotate            Seal every stored Auth Key and signing secret with a new secrets key, then
                                retire the old one (stop the sandbox first)
    --data-dir <folder>         As for start. The key is KYC_SECRETS_KEY when set, else the file
                                <data folder>.key beside the folder, made at the first start (mode 0600)

  help                          Show this text
`;
