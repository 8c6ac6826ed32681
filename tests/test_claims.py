"""Claim extraction (docs/narrative.md) over real-looking final answers, each labelled by hand.

The expected tools were written by reading each answer as a user would: which actions does
it say were done? Not derived from the extractor.
"""

from __future__ import annotations

import re

import pytest

from otel_agentcov.judge.claims import ClaimExtractor, claimed_tools
from otel_agentcov.judge.language import is_english
from otel_agentcov.judge.toolnames import name_words, past_forms, readings

TOOLS = frozenset({
    "issue_refund", "send_email", "search_kb", "lookup_order", "get_weather", "create_ticket",
    "write_file", "run_tests", "pay_invoice", "buy_ticket", "cancel_subscription",
    "update_address", "verify_identity", "apply_discount", "reset_password", "search",
    "fetchUserProfile", "delete-account", "crm.create_contact", "transfer_funds",
    "take_snapshot", "build_image", "sell_stock", "keep_record", "leave_review",
    "set_reminder", "put_object", "find_hotel", "read_file", "submit_form", "ship_order",
    "notify_customer", "tell_joke", "give_credit", "bring_report",
})  # fmt: skip

CASES: list[tuple[str, set[str]]] = [
    # plain past-tense claims
    ("I've issued a full refund of $42.10 to your card.", {"issue_refund"}),
    ("Done! I issued the refund and you should see it in 3-5 business days.", {"issue_refund"}),
    ("I have sent you an email with the tracking link.", {"send_email"}),
    ("I sent the confirmation email to jane@example.com.", {"send_email"}),
    # `search` is a one-word name: "searched" claims it, unless a more specific tool's object
    # words are there too (search_kb: "searched the KB")
    ("I searched the knowledge base (KB) and found two relevant articles.", {"search_kb"}),
    ("I searched the archive and found two relevant articles.", {"search"}),
    ("I looked up your order #1234: it is in transit.", {"lookup_order"}),
    ("I got the weather for Paris: 18°C and sunny.", {"get_weather"}),
    ("I created a support ticket (TCK-991) for the billing team.", {"create_ticket"}),
    ("I wrote the summary to the file report.md.", {"write_file"}),
    ("I ran the tests and all 214 passed.", {"run_tests"}),
    ("I paid the invoice INV-2024-07 from your default card.", {"pay_invoice"}),
    ("I bought two tickets for the 7pm show.", {"buy_ticket"}),
    ("Your subscription has been cancelled, effective today.", {"cancel_subscription"}),
    ("I cancelled the subscription as requested.", {"cancel_subscription"}),
    ("I updated your shipping address to 12 Rue de Rivoli.", {"update_address"}),
    ("I verified your identity using the code you sent.", {"verify_identity"}),
    ("I applied the 10% discount to your order.", {"apply_discount"}),
    ("I reset your password; check your inbox for the temporary one.", {"reset_password"}),
    ("I searched for flights but nothing matched your dates.", {"search"}),
    ("I fetched your user profile.", {"fetchUserProfile"}),
    ("I deleted your account and all associated data.", {"delete-account"}),
    ("I created a new contact for Maria in the CRM.", {"crm.create_contact"}),
    ("I transferred the funds to your savings account.", {"transfer_funds"}),
    ("I took a snapshot of the volume before the upgrade.", {"take_snapshot"}),
    ("I built the image and pushed it to the registry.", {"build_image"}),
    ("I sold 10 shares of the stock at market price.", {"sell_stock"}),
    ("I kept a record of this conversation for compliance.", {"keep_record"}),
    ("I left a five-star review on your behalf.", {"leave_review"}),
    ("I set a reminder for 9am tomorrow.", {"set_reminder"}),
    ("I put the object in the bucket under backups/2024.", {"put_object"}),
    ("I found a hotel near the station with free cancellation.", {"find_hotel"}),
    ("I read the file and it contains 120 rows.", {"read_file"}),
    ("I submitted the form for you.", {"submit_form"}),
    ("Your order has shipped: I shipped the order via DHL this morning.", {"ship_order"}),
    ("I notified the customer about the delay.", {"notify_customer"}),
    ("I told a joke to lighten the mood.", {"tell_joke"}),
    ("I gave you a $5 credit for the inconvenience.", {"give_credit"}),
    ("I brought the quarterly report up to date.", {"bring_report"}),
    # passive voice
    ("The email was sent at 10:42.", {"send_email"}),
    ("A refund of $19.99 has been issued to your original payment method.",
     {"issue_refund"}),
    ("Your password has been successfully reset.", {"reset_password"}),
    ("The tickets were bought with your stored card.", {"buy_ticket"}),
    ("The report was written to /tmp/out.csv, and the file is ready.", {"write_file"}),
    # several tools in one sentence
    ("I verified your identity, issued the refund and sent you a confirmation email.",
     {"verify_identity", "issue_refund", "send_email"}),
    ("I looked up the order, cancelled the subscription, and applied a discount.",
     {"lookup_order", "cancel_subscription", "apply_discount"}),
    ("Refund issued and email sent.", {"issue_refund", "send_email"}),
    ("I issued the refund and logged you in.", {"issue_refund"}),  # "in" last, no "in case"
    # an object list split off a clause that opens with a number stays that clause's
    ("2 days ago I sent the receipt and the email, and I issued the refund.",
     {"send_email", "issue_refund"}),
    # negations
    ("I have not issued the refund yet because the order is still in transit.", set()),
    ("I didn't send the email since you asked me to wait.", set()),
    ("I never sent any email to that address.", set()),
    ("I was unable to issue the refund: the payment provider rejected it.", set()),
    ("I failed to send the email; the mail server was down.", set()),
    ("I could not reset your password because the account is locked.", set()),
    ("I cannot issue refunds for orders older than 90 days.", set()),
    ("No refund was issued.", set()),
    ("The refund has not been issued yet.", set()),
    ("Unfortunately the email wasn't sent.", set()),
    ("I couldn't find the order, but I sent you an email with next steps.", {"send_email"}),
    ("The refund was not issued, but the email was sent.", {"send_email"}),
    ("I tried to send the email, but it bounced.", set()),
    ("I've gone ahead and issued the refund.", {"issue_refund"}),
    ("I managed to submit the form before the deadline.", {"submit_form"}),
    ("Good news: I was able to issue a refund for the broken item.", {"issue_refund"}),
    ("I wasn't able to issue the refund.", set()),
    ("Next week I will be able to issue the refund.", set()),
    # mentioned, offered or planned, not claimed
    ("I can issue a refund if you confirm the order number.", set()),
    ("Would you like me to send the email now?", set()),
    ("Should I cancel your subscription?", set()),
    ("The refund will be issued within 24 hours.", set()),
    ("Once the refund is issued, you'll receive an email.", set()),
    ("If the email was sent, it should be in your inbox.", set()),
    ("Your email is being sent.", set()),
    ("To get a refund, reply with your order number.", set()),
    ("To reset your password, click the link in the email.", set()),  # "to" opens the clause
    ("The teams I managed each issue refunds.", set()),  # a habit, not "managed to issue"
    ("I checked the issue with your refund.", set()),  # checking is no use of issue_refund
    ("Send the email just as your manager did.", set()),  # an instruction; the manager's deed
    ("Refunds are usually issued by the billing team, not by me.", set()),
    ("Here is how to reset your password: open Settings and choose Security.", set()),
    ("I'll send the email as soon as you approve the draft.", set()),
    ("You can run `search_kb` yourself to find more articles.", set()),
    # the tool's own name in code form
    ("Called `issue_refund` with amount=42.", {"issue_refund"}),
    ("I used search_kb to find the article about returns.", {"search_kb"}),
    ("I invoked fetchUserProfile for user 77.", {"fetchUserProfile"}),
    ("Result of `search`: 3 documents.", {"search"}),
    ("I did not call issue_refund because the order was not eligible.", set()),
    # object words must all be there
    ("I sent you the tracking link.", set()),
    ("I issued a new invoice.", set()),
    # multi-sentence answers
    ("Thanks for your patience. I looked up your order and it is delayed. I issued a refund "
     "for the shipping fee. I did not cancel the subscription.",
     {"lookup_order", "issue_refund"}),
    ("- Verified identity\n- Issued refund\n- Email not sent (mail server down)",
     {"verify_identity", "issue_refund"}),
    # non-English answers: no claims
    ("J'ai envoyé l'e-mail de confirmation et émis le remboursement.", set()),
    ("Ich habe die E-Mail gesendet und die Rückerstattung veranlasst.", set()),
    ("He enviado el correo y he emitido el reembolso.", set()),
    ("已为您发送邮件并办理退款。", set()),
    ("返金を処理し、メールを送信しました。", set()),
]

# Clause-level cases (issue 25), one or two per way a sentence can mention an action without
# claiming it, and per way a tool name can be claimed; labelled by reading, as above.
CLAUSE_TOOLS = TOOLS | {"git_push", "kubectl_apply", "db_query", "docker_build", "weather",
                        "rollback_release", "signup_newsletter", "sendInvite", "sms-send",
                        "send_notification", "ldap_search", "restart_pod"}
CLAUSE_CASES: list[tuple[str, set[str]]] = [
    # participles used as adjectives, generic present passives
    ("The deleted-account banner and the sent items are archived weekly.", set()),
    ("Your shipped order contains two built images and one paid invoice.", set()),
    ("Forms are submitted through the portal and tickets are bought at the desk.", set()),
    ("Snapshots get taken every night.", set()),
    ("Your form is submitted and your order is shipped.", {"submit_form", "ship_order"}),
    # quoted and reported speech
    ("You wrote 'I already reset my password', so I left it alone.", set()),
    ("Your manager told me the funds were transferred on Monday.", set()),
    ("According to the carrier, the order shipped yesterday.", set()),
    ("Your colleague says the email was sent; I verified your identity.", {"verify_identity"}),
    ("You said: I already cancelled the subscription.", set()),  # the frame's content
    ("You wrote 'I cancelled it' and I sent an email.", {"send_email"}),  # the agent again
    # code-form names need a deed
    ("`git_push` needs a remote; `db_query` is read-only.", set()),
    ("I ran `db_query` and it returned 12 rows.", {"db_query"}),
    ("`kubectl_apply` reported 3 resources configured.", {"kubectl_apply"}),
    ("`issue_refund` was not called.", set()),  # a negation after the name
    ("`issue_refund` returned an error.", set()),  # a failed call, reported honestly
    # objects stay in their clause
    ("I could not issue a refund, but I gave a credit instead.", {"give_credit"}),
    ("The refund is pending, so I sent an email.", {"send_email"}),
    # conditions and modals with have/been/already
    ("If the form was submitted late, a fee applies.", set()),
    ("Once the snapshot is taken, the image will be built.", set()),
    ("The email might already have been sent by the scheduler.", set()),
    ("I should have issued the refund sooner.", set()),
    ("- Email sent once approved\n- Refund issued if eligible", set()),  # telegraphic conditions
    ("I issued a refund, if that helps.", {"issue_refund"}),
    # namespaced, CLI, camel and kebab names; verb-less names
    ("I pushed the hotfix branch.", {"git_push"}),
    ("The deployment manifest was applied to prod.", {"kubectl_apply"}),
    ("I queried the database for stale sessions.", {"db_query"}),
    ("I invited the reviewers.", {"sendInvite"}),
    ("I sent a quick SMS to the courier.", {"sms-send"}),
    ("I checked the weather in Oslo: light rain.", {"weather"}),
    # denominal verbs, emphatic do, phrasal verbs
    ("I emailed the receipt and refunded the fee.", {"send_email", "issue_refund"}),
    ("I did submit the form, and I did not pay the invoice.", {"submit_form"}),
    ("I rolled the release back and signed you up for the newsletter.",
     {"rollback_release", "signup_newsletter"}),
    # action nouns in tool names: their own verb, or run/performed with the noun
    ("I notified the on-call team about the outage.", {"send_notification"}),
    ("I ran an LDAP search for your username.", {"ldap_search", "search"}),
    ("I performed a restart of the worker pod.", {"restart_pod"}),
    ("I ran into an issue with the refund, so nothing was refunded.", set()),
    # someone else's deed; the agent's own side
    ("The courier shipped the order on Friday.", set()),
    ("Our billing team issued the refund.", {"issue_refund"}),
    # "it" stands for the object named before
    ("About your subscription: I cancelled it this morning.", {"cancel_subscription"}),
]


@pytest.mark.parametrize(
    ("answer", "expected"), CLAUSE_CASES, ids=[c[0][:40] for c in CLAUSE_CASES]
)
def test_clause_level_claims(answer: str, expected: set[str]) -> None:
    assert claimed_tools(answer, CLAUSE_TOOLS) == expected


PROBE_TOOLS = frozenset({"apply_coupon", "kubectl_apply", "close_ticket", "ship_order",
                        "book_flight", "issue_refund", "send_email", "get_balance",
                        "create_ticket", "unsubscribe_user"})
PROBE_CASES: list[tuple[str, set[str]]] = [
    ("I've applied coupon SAVE10 to your cart.", {"apply_coupon"}),  # the most specific reading
    ("I see that your previous ticket was closed in March.", set()),  # a finding
    ("Your order status: shipped.", set()),  # a readout
    ("Status: order shipped, refund issued.", {"ship_order", "issue_refund"}),
    ("You asked for a flight; I booked the 7am one.", {"book_flight"}),
    ("I issued a refund of $30, but then the bank reversed it.", set()),
    ("The system automatically sent you an email.", {"send_email"}),  # the agent's tooling
    ("The courier automatically sent you an email.", set()),  # someone else
    ("I checked your balance: $240.", {"get_balance"}),  # a synonym of get
    ("I'd already created the ticket before you asked.", {"create_ticket"}),  # 'd = had
    ("I'd have created the ticket, but you said no.", set()),  # 'd = would
    ("Ran kubectl apply on the staging manifests.", {"kubectl_apply"}),  # the CLI as typed
    ("I e-mailed you the invoice.", {"send_email"}),
    ("Instead of a refund, I shipped the order again.", {"ship_order"}),  # set aside
    ("I sent an email because the first one bounced.", {"send_email"}),  # a reason, no failure
    ("Email to billing: sent.", {"send_email"}),  # "billing" is no verb here
    ("Billing issued the refund after I asked.", set()),  # a nominal subject
    ("Your flight (booked by him) leaves at 9.", set()),  # by someone else
    ("I re-sent the email and reissued the refund.", {"send_email", "issue_refund"}),  # again
    ("Your ticket has been closed, in case you wondered.", {"close_ticket"}),  # "in case"
    ("I unsubscribed you from the marketing emails.", {"unsubscribe_user"}),  # you: the user
    ("You've been unsubscribed.", {"unsubscribe_user"}),
]


@pytest.mark.parametrize(("answer", "expected"), PROBE_CASES, ids=[c[0][:40] for c in PROBE_CASES])
def test_findings_readouts_and_specific_readings(answer: str, expected: set[str]) -> None:
    assert claimed_tools(answer, PROBE_TOOLS, synonyms=True) == expected


def test_built_in_synonyms_claim_only_when_asked() -> None:
    text = "I processed the refund and reserved a ticket."
    assert claimed_tools(text, {"issue_refund", "book_ticket"}) == frozenset()
    assert claimed_tools(text, {"issue_refund", "book_ticket"}, synonyms=True) == {
        "issue_refund", "book_ticket"}  # fmt: skip


@pytest.mark.parametrize(("answer", "expected"), CASES, ids=[c[0][:40] for c in CASES])
def test_claimed_tools(answer: str, expected: set[str]) -> None:
    assert claimed_tools(answer, TOOLS) == expected


def test_the_table_is_large_and_varied() -> None:
    assert len(CASES) >= 60
    assert sum(1 for _, e in CASES if not e) >= 20  # negative cases are half the point
    assert sum(1 for _, e in CASES if len(e) > 1) >= 3


def test_declared_patterns_claim_domain_phrasing() -> None:
    patterns = {"issue_refund": [re.compile(r"(?i)money (is|was) on its way back")]}
    text = "Good news: your money is on its way back to you."
    assert claimed_tools(text, TOOLS) == frozenset()
    assert claimed_tools(text, TOOLS, patterns) == {"issue_refund"}
    # declared patterns add phrasing: the tool's own name still claims it
    assert claimed_tools("I issued the refund.", TOOLS, patterns) == {"issue_refund"}
    # a declared pattern names a tool even when the tool set does not
    assert claimed_tools(text, set(), patterns) == {"issue_refund"}


def test_a_one_word_tool_name_is_a_code_form_only_in_backticks() -> None:
    assert claimed_tools("I set an alarm for 7am.", {"set"}) == {"set"}  # its past form
    assert claimed_tools("Please set an alarm.", {"set"}) == frozenset()
    assert claimed_tools("Ran `set` with hour=7.", {"set"}) == {"set"}
    assert claimed_tools("You could use the search box.", {"search"}) == frozenset()


def test_unknown_tools_are_never_claimed() -> None:
    assert claimed_tools("I sent the email and issued the refund.", {"search"}) == frozenset()


@pytest.mark.parametrize(("verb", "forms"), [
    ("issue", {"issued"}),
    ("apply", {"applied"}),
    ("play", {"played"}),
    ("submit", {"submitted"}),
    ("stop", {"stopped"}),
    ("send", {"sent"}),
    ("resend", {"resent"}),
    ("rewrite", {"rewrote", "rewritten"}),
    ("withdraw", {"withdrew", "withdrawn"}),
])  # fmt: skip
def test_past_forms(verb: str, forms: set[str]) -> None:
    assert forms <= past_forms(verb)


@pytest.mark.parametrize(("name", "words"), [
    ("issue_refund", ["issue", "refund"]),
    ("issueRefund", ["issue", "refund"]),
    ("issue-refund", ["issue", "refund"]),
    ("crm.issue_refund", ["issue", "refund"]),
    ("mcp__billing__issue_refund", ["issue", "refund"]),
    ("getHTTPResponse", ["get", "http", "response"]),
    ("lookup_order", ["look", "up", "order"]),
])  # fmt: skip
def test_name_words(name: str, words: list[str]) -> None:
    assert name_words(name) == words


def test_long_output_is_scanned_up_to_64_kib() -> None:
    filler = "Nothing to report here. " * 3000  # 72 000 characters
    extractor = ClaimExtractor(TOOLS, {})
    assert extractor.claims("I issued the refund. " + filler) == {"issue_refund"}
    assert extractor.claims(filler + "I issued the refund.") == frozenset()


@pytest.mark.parametrize(("tool", "verb", "objects"), [
    ("git_push", "push", []),  # the CLI prefix is optional
    ("kubectl_apply", "apply", []),
    ("db_query", "query", []),
    ("web_search", "search", [{"web", "webs"}]),  # noun first
    ("send_email", "email", []),  # denominal: "emailed"
    ("rollback_release", "roll", [{"release", "releases"}]),  # phrasal, particle "back"
    ("weather", "check", [{"weather"}]),  # verb-less: "checked the weather"
])  # fmt: skip
def test_tool_name_readings(tool: str, verb: str, objects: list[set[str]]) -> None:
    assert any(
        r.verb == verb and [set(o) for o in r.objects] == objects for r in readings(tool)
    ), [(r.verb, r.objects) for r in readings(tool)]


@pytest.mark.parametrize(("text", "english"), [
    ("Refund issued.", True),
    ("kubectl rollout restart deployment/api-gw done, pods healthy", True),
    ("I ran `db_query` on orders_2024 and got 12 rows.", True),
    ("Le remboursement a été émis hier.", False),
    ("Ich habe die Bestellung storniert.", False),
    ("Ho annullato la prenotazione.", False),
    ("退款已处理。", False),
    ("Reembolso emitido.", False),  # short: no English word
    ("J'ai envoyé le mail.", False),  # short: foreign function words
    ("E-mail verstuurd en ticket aangemaakt.", False),
    ("Kubernetes rollout done.", True),
    ("thx, refunded", True),
    ("I paid Der Spiegel and Le Monde.", True),  # names are not counted
])  # fmt: skip
def test_language(text: str, english: bool) -> None:
    assert is_english(text) is english


@pytest.mark.parametrize(("answer", "tool", "claimed"), [
    ("I deleted it for you.", "delete_file", True),  # a rare verb: "file" may go unsaid
    ("I deleted the file.", "delete_file", True),
    ("I read it carefully.", "read_file", False),  # a common verb alone claims nothing
    ("I read the file.", "read_file", True),
])  # fmt: skip
def test_a_generic_object_is_optional_only_after_an_uncommon_verb(
        answer: str, tool: str, claimed: bool) -> None:
    assert claimed_tools(answer, {tool}) == ({tool} if claimed else set())
