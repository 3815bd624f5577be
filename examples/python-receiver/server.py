"""Run the receiver over HTTPS: python3 server.py

Environment: KYC_AUTH_KEY, TLS_CERT, TLS_KEY, PORT, and KYC_SIGNING_SECRETS: the company's
signing secrets, space-separated ("whsec_new whsec_old" during a rotation). Unset, signatures
are not checked.
"""

import os
import re
import ssl
import time

from kyc_webhook.receiver import KycEvent, make_handler, serve

SUGGESTED = {
    "APPROVED": "activate the account",
    "REJECTED": "ask for a retry or more documents",
    "PENDING": "notify the compliance team",
    "ERROR": "allow the user to retry",
}


def on_event(event: KycEvent) -> None:
    if event.status is not None:
        print(f"{event.session_id}: {event.status.status.value} -> {SUGGESTED[event.status.status.value]}", flush=True)
    else:
        # v1 bodies carry no status: read it from detailsURL with the operator-issued credentials.
        print(f"{event.session_id}: finished, total score {event.v1.scores.total}", flush=True)


if __name__ == "__main__":
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(os.environ["TLS_CERT"], os.environ["TLS_KEY"])
    # Commas accepted too, as the TypeScript examples read the same variable.
    signing_secrets = [s for s in re.split(r"[\s,]+", os.environ.get("KYC_SIGNING_SECRETS", "")) if s]
    handler = make_handler([os.environ["KYC_AUTH_KEY"]], on_event, signing_secrets=signing_secrets)
    server = serve("0.0.0.0", int(os.environ.get("PORT", "8443")), handler, context)
    print(f"listening on https://0.0.0.0:{server.server_address[1]}/", flush=True)
    while True:
        time.sleep(3600)
