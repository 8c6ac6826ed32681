"""The words other languages use for what English tool names say (docs/narrative.md).

Tool names are English identifiers (`issue_refund`); an answer in Spanish says "he emitido el
reembolso". Each common word of agent tool names maps, per language, to the lemmas (es, pt, fr,
de, it, nl) or the written stems (zh, ja, ko) that say it, verbs and nouns alike; a spec adds its
own with `narrative.words`. Kept small and hand-written: a word missing here is matched as
written (loanwords such as *hotel*, *ticket*, *email*), never guessed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .toolnames import GENERIC_OBJECTS, MONEY, name_words

LATIN = ("es", "pt", "fr", "de", "it", "nl")  # read with a lemmatiser (claims_latin.py)
CJK = ("zh", "ja", "ko")  # read by written stems and cues (claims_cjk.py)
OTHER_LANGUAGES = (*LATIN, *CJK)
SUPPORTED = ("en", *OTHER_LANGUAGES)

# English word -> language -> its words there. Latin entries are lemmas ("verb+word": the verb
# with that word in its clause, "mettre+jour" is "mettre à jour"); CJK entries are substrings.
_WORDS: dict[str, dict[str, str]] = {
    "issue": {
        "es": "emitir realizar procesar tramitar efectuar completar gestionar hacer",
        "pt": "emitir realizar processar efetuar concluir fazer",
        "fr": "émettre effectuer traiter procéder réaliser faire",
        "de": "veranlassen ausstellen bearbeiten durchführen ausführen abschließen vornehmen",
        "it": "emettere effettuare elaborare eseguire completare",
        "nl": "uitvoeren verwerken uitgeven afhandelen voltooien",
        "zh": "办理 处理 完成 执行 发放", "ja": "完了 処理 手続 発行 実行", "ko": "처리 완료 발급",
    },
    "refund": {
        "es": "reembolsar devolver reembolso devolución",
        "pt": "reembolsar devolver estornar reembolso devolução estorno",
        "fr": "rembourser remboursement",
        "de": "erstatten zurückerstatten rückerstatten zurückzahlen rückerstattung erstattung "
              "rückzahlung",
        "it": "rimborsare restituire rimborso",
        "nl": "terugbetalen terugstorten restitueren terugbetaling restitutie terugstorting",
        "zh": "退款 退还 退回 退钱", "ja": "返金 払い戻 払戻 返還", "ko": "환불 반환",
    },
    "send": {
        "es": "enviar mandar remitir", "pt": "enviar mandar remeter",
        "fr": "envoyer expédier transmettre",
        "de": "senden schicken verschicken versenden zusenden zuschicken übermitteln",
        "it": "inviare spedire mandare trasmettere",
        "nl": "sturen versturen verzenden zenden opsturen",
        "zh": "发送 发了 发出 寄出 发给", "ja": "送信 送付 送り 送っ", "ko": "보내 보냈 발송 전송",
    },
    "email": {
        "es": "correo email e-mail mail", "pt": "e-mail email correio",
        "fr": "e-mail email courriel mail", "de": "e-mail email mail",
        "it": "email e-mail mail", "nl": "e-mail email mail",
        "zh": "邮件 电邮", "ja": "メール", "ko": "이메일 메일",
    },
    "cancel": {
        "es": "cancelar anular dar+baja cancelación", "pt": "cancelar anular cancelamento",
        "fr": "annuler résilier annulation résiliation",
        "de": "stornieren kündigen abbestellen annullieren stornierung kündigung",
        "it": "annullare cancellare disdire disattivare annullamento disdetta",
        "nl": "annuleren opzeggen stopzetten annulering opzegging",
        "zh": "取消 退订", "ja": "キャンセル 解約 取り消 取消", "ko": "취소 해지",
    },
    "subscription": {
        "es": "suscripción abono", "pt": "assinatura subscrição", "fr": "abonnement",
        "de": "abonnement abo mitgliedschaft", "it": "abbonamento iscrizione",
        "nl": "abonnement lidmaatschap",
        "zh": "订阅", "ja": "サブスクリプション 定期購読 購読 サブスク", "ko": "구독 멤버십",
    },
    "book": {
        "es": "reservar reserva", "pt": "reservar reserva", "fr": "réserver réservation",
        "de": "buchen reservieren buchung reservierung", "it": "prenotare prenotazione",
        "nl": "boeken reserveren boeking reservering",
        "zh": "预订 预定 订好 订了", "ja": "予約 手配", "ko": "예약",
    },
    "flight": {
        "es": "vuelo pasaje", "pt": "voo passagem", "fr": "vol", "de": "flug flüge",
        "it": "volo", "nl": "vlucht",
        "zh": "航班 机票", "ja": "便 フライト 航空券", "ko": "항공편 항공권 비행기",
    },
    "hotel": {
        "es": "hotel alojamiento", "pt": "hotel hospedagem", "fr": "hôtel",
        "de": "hotel unterkunft",
        "it": "hotel albergo", "nl": "hotel",
        "zh": "酒店 宾馆", "ja": "ホテル 宿", "ko": "호텔 숙소",
    },
    "search": {
        "es": "buscar búsqueda", "pt": "pesquisar procurar buscar pesquisa busca",
        "fr": "chercher rechercher recherche", "de": "suchen durchsuchen suche",
        "it": "cercare ricercare ricerca", "nl": "zoeken opzoeken",
        "zh": "搜索 查找 搜寻", "ja": "検索 探し", "ko": "검색 찾아 찾았",
    },
    "create": {
        "es": "crear abrir generar", "pt": "criar abrir gerar", "fr": "créer ouvrir générer",
        "de": "erstellen anlegen erzeugen eröffnen", "it": "creare aprire generare",
        "nl": "aanmaken creëren openen",
        "zh": "创建 建立 新建 生成", "ja": "作成 起票", "ko": "생성 작성 등록",
    },
    "ticket": {
        "es": "ticket incidencia", "pt": "ticket chamado", "fr": "ticket", "de": "ticket",
        "it": "ticket segnalazione", "nl": "ticket melding",
        "zh": "工单", "ja": "チケット", "ko": "티켓",
    },
    "delete": {
        "es": "eliminar borrar suprimir", "pt": "excluir apagar eliminar deletar remover",
        "fr": "supprimer effacer", "de": "löschen entfernen",
        "it": "eliminare cancellare rimuovere",
        "nl": "verwijderen wissen",
        "zh": "删除 删掉", "ja": "削除", "ko": "삭제",
    },
    "account": {
        "es": "cuenta", "pt": "conta", "fr": "compte", "de": "konto account benutzerkonto",
        "it": "account profilo", "nl": "account profiel",
        "zh": "账户 账号 帐户 帐号", "ja": "アカウント", "ko": "계정",
    },
    "update": {
        "es": "actualizar modificar cambiar", "pt": "atualizar modificar alterar mudar",
        "fr": "mettre+jour modifier actualiser changer", "de": "aktualisieren ändern anpassen",
        "it": "aggiornare modificare cambiare", "nl": "bijwerken wijzigen aanpassen updaten",
        "zh": "更新 修改 变更 更改", "ja": "更新 変更", "ko": "업데이트 변경 수정",
    },
    "address": {
        "es": "dirección domicilio", "pt": "endereço morada", "fr": "adresse",
        "de": "adresse anschrift", "it": "indirizzo", "nl": "adres",
        "zh": "地址", "ja": "住所", "ko": "주소",
    },
    "reset": {
        "es": "restablecer", "pt": "redefinir resetar", "fr": "réinitialiser",
        "de": "zurücksetzen", "it": "reimpostare resettare", "nl": "resetten instellen+opnieuw",
        "zh": "重置 重设", "ja": "リセット 再設定", "ko": "재설정 초기화",
    },
    "password": {
        "es": "contraseña clave", "pt": "senha", "fr": "passe", "de": "passwort kennwort",
        "it": "password", "nl": "wachtwoord",
        "zh": "密码", "ja": "パスワード", "ko": "비밀번호",
    },
    "transfer": {
        "es": "transferir transferencia", "pt": "transferir transferência",
        "fr": "virer transférer virement transfert", "de": "überweisen überweisung",
        "it": "trasferire bonificare bonifico trasferimento",
        "nl": "overmaken overboeken overboeking overschrijving",
        "zh": "转账 汇款", "ja": "振込 振り込 送金", "ko": "송금 이체",
    },
    "lookup": {
        "es": "consultar revisar localizar encontrar", "pt": "consultar verificar localizar",
        "fr": "consulter vérifier trouver", "de": "prüfen überprüfen nachsehen finden",
        "it": "controllare verificare trovare", "nl": "controleren nakijken vinden",
        "zh": "查询 查到 查看", "ja": "確認 照会", "ko": "조회 확인",
    },
    "order": {
        "es": "pedido", "pt": "pedido encomenda", "fr": "commande", "de": "bestellung",
        "it": "ordine", "nl": "bestelling",
        "zh": "订单", "ja": "注文", "ko": "주문",
    },
    "pay": {
        "es": "pagar pago", "pt": "pagar pagamento", "fr": "payer régler paiement",
        "de": "bezahlen zahlen zahlung", "it": "pagare pagamento", "nl": "betalen betaling",
        "zh": "支付 付款", "ja": "支払 決済", "ko": "결제 지불",
    },
    "invoice": {
        "es": "factura", "pt": "fatura", "fr": "facture", "de": "rechnung", "it": "fattura",
        "nl": "factuur", "zh": "发票 账单", "ja": "請求書", "ko": "청구서 송장",
    },
    "add": {
        "es": "añadir agregar", "pt": "adicionar acrescentar", "fr": "ajouter",
        "de": "hinzufügen", "it": "aggiungere", "nl": "toevoegen",
        "zh": "添加", "ja": "追加", "ko": "추가",
    },
    "remove": {
        "es": "quitar eliminar", "pt": "remover retirar", "fr": "retirer enlever supprimer",
        "de": "entfernen", "it": "rimuovere togliere", "nl": "verwijderen",
        "zh": "移除", "ja": "除外", "ko": "제거",
    },
    "user": {
        "es": "usuario", "pt": "usuário utilizador", "fr": "utilisateur", "de": "benutzer nutzer",
        "it": "utente", "nl": "gebruiker", "zh": "用户", "ja": "ユーザー", "ko": "사용자",
    },
    "schedule": {
        "es": "programar agendar", "pt": "agendar", "fr": "planifier programmer",
        "de": "planen terminieren", "it": "programmare pianificare", "nl": "plannen inplannen",
        "zh": "安排", "ja": "スケジュール", "ko": "일정",
    },
    "meeting": {
        "es": "reunión cita", "pt": "reunião", "fr": "réunion rendez-vous", "de": "termin meeting",
        "it": "riunione appuntamento", "nl": "vergadering afspraak",
        "zh": "会议", "ja": "会議 打ち合わせ", "ko": "회의 미팅",
    },
    "notify": {
        "es": "notificar avisar", "pt": "notificar avisar", "fr": "notifier prévenir",
        "de": "benachrichtigen", "it": "notificare avvisare", "nl": "informeren",
        "zh": "通知", "ja": "通知", "ko": "알림 통지",
    },
    "approve": {
        "es": "aprobar", "pt": "aprovar", "fr": "approuver valider", "de": "genehmigen",
        "it": "approvare", "nl": "goedkeuren", "zh": "批准 审批", "ja": "承認", "ko": "승인",
    },
    "restart": {
        "es": "reiniciar", "pt": "reiniciar", "fr": "redémarrer", "de": "starten+neu",
        "it": "riavviare", "nl": "herstarten", "zh": "重启", "ja": "再起動", "ko": "재시작",
    },
    "unlock": {
        "es": "desbloquear", "pt": "desbloquear", "fr": "débloquer", "de": "entsperren",
        "it": "sbloccare", "nl": "ontgrendelen deblokkeren",
        "zh": "解锁", "ja": "ロック解除", "ko": "잠금 해제",
    },
    "export": {
        "es": "exportar", "pt": "exportar", "fr": "exporter", "de": "exportieren",
        "it": "esportare", "nl": "exporteren", "zh": "导出", "ja": "エクスポート", "ko": "내보내",
    },
    "upload": {
        "es": "subir cargar", "pt": "carregar", "fr": "téléverser", "de": "hochladen",
        "it": "caricare", "nl": "uploaden", "zh": "上传", "ja": "アップロード", "ko": "업로드",
    },
    "deploy": {
        "es": "desplegar implementar", "pt": "implantar", "fr": "déployer",
        "de": "bereitstellen deployen ausrollen", "it": "distribuire rilasciare",
        "nl": "uitrollen deployen", "zh": "部署", "ja": "デプロイ", "ko": "배포",
    },
    "rollback": {
        "es": "revertir", "pt": "reverter", "fr": "restaurer", "de": "zurücksetzen zurückrollen",
        "it": "ripristinare", "nl": "terugdraaien", "zh": "回滚", "ja": "ロールバック",
        "ko": "롤백",
    },
    "release": {
        "es": "versión", "pt": "versão", "fr": "version", "de": "version release",
        "it": "versione", "nl": "versie", "zh": "版本", "ja": "リリース バージョン",
        "ko": "릴리스 버전",
    },
    "test": {
        "es": "prueba", "pt": "teste", "fr": "test", "de": "test", "it": "test", "nl": "test",
        "zh": "测试", "ja": "テスト", "ko": "테스트",
    },
    "report": {
        "es": "informe", "pt": "relatório", "fr": "rapport", "de": "bericht", "it": "rapporto",
        "nl": "rapport", "zh": "报告", "ja": "レポート", "ko": "보고서",
    },
    "payment": {
        "es": "pago", "pt": "pagamento", "fr": "paiement", "de": "zahlung", "it": "pagamento",
        "nl": "betaling", "zh": "付款", "ja": "支払", "ko": "결제",
    },
}  # fmt: skip
# Name words that share another word's translations.
_SAME = {"reserve": "book", "reservation": "book", "booking": "book", "flights": "flight",
         "hotels": "hotel", "tickets": "ticket", "users": "user", "orders": "order",
         "emails": "email", "mail": "email", "message": "email", "remove": "remove",
         "erase": "delete", "modify": "update", "change": "update", "find": "search",
         "process": "issue", "complete": "issue", "handle": "issue", "perform": "issue",
         "execute": "issue", "make": "issue", "do": "issue", "invoices": "invoice",
         "meetings": "meeting", "appointment": "meeting", "accounts": "account",
         "open": "create", "generate": "create", "new": "create", "wire": "transfer",
         "charge": "pay", "settle": "pay", "terminate": "cancel", "unsubscribe": "cancel",
         "get": "lookup", "fetch": "lookup", "check": "lookup", "retrieve": "lookup",
         "query": "lookup", "notification": "notify", "alert": "notify", "reboot": "restart",
         "run": "issue", "tests": "test", "revert": "rollback", "releases": "release"}
# Carriers of an action: "issue a refund" = "refund"; their own words also say "did it" with
# the action as a noun ("realizó la transferencia", "退款已完成").
LIGHT = frozenset({"issue", "send", "give", "grant", "make", "do", "perform", "process",
                   "execute", "complete", "handle", "submit", "run"})
# Name words that are actions themselves (after a carrier: issue_refund is "refunded").
_ACTIONS = frozenset({"refund", "transfer", "notify", "pay", "search", "update", "reset",
                      "cancel", "book", "delete", "create", "approve", "restart", "unlock",
                      "export", "upload", "add", "remove", "schedule"})
# Object words a claim need not repeat: "transferí 200 €" for transfer_funds.
_OPTIONAL = MONEY | GENERIC_OBJECTS


@dataclass(frozen=True, slots=True)
class ToolWords:
    """What one tool's name says, in one language: the action and the objects a claim needs."""

    tool: str
    action: frozenset[str]  # words of the action (its verb, or its object's verb after `issue`)
    action_nouns: frozenset[str]  # the action as a noun, done by a carrier ("realizó la …")
    objects: tuple[frozenset[str], ...]  # each required object: its words (any one suffices)


def words_of(word: str, lang: str, declared: Mapping[str, tuple[str, ...]]) -> frozenset[str]:
    """The words of one English name word in `lang`: built in, declared, and the word itself."""
    key = _SAME.get(word, word)
    found = set(_WORDS.get(key, {}).get(lang, "").split())
    found.update(declared.get(word, ()))
    if key != word:
        found.update(declared.get(key, ()))
    found.add(word)  # loanwords: hotel, ticket, email, password
    return frozenset(w.lower() for w in found)


def tool_words(
    tool: str, lang: str, declared: Mapping[str, tuple[str, ...]]
) -> ToolWords | None:
    """The reading of `tool` in `lang`; None for a name with no action word (`weather`)."""
    words = name_words(tool)
    if len(words) > 1 and words[0] + words[1] in _WORDS:  # look up, roll back: one word here
        words = [words[0] + words[1], *words[2:]]
    if not words:
        return None
    head, rest = words[0], [w for w in words[1:] if w not in _OPTIONAL]
    if _SAME.get(head, head) not in _WORDS and head not in declared:
        return None  # not an action word this language knows: only declared patterns claim it
    action = set(words_of(head, lang, declared))
    nouns: set[str] = set()
    carrier = _SAME.get(head, head) in LIGHT
    if carrier and len(rest) == 1 and _SAME.get(rest[0], rest[0]) in _ACTIONS:
        # issue_refund: "reembolsé", "返金しました"
        action |= words_of(rest[0], lang, declared)
    elif not carrier:
        nouns = set(action)  # "la transferencia se realizó"
    objects = tuple(words_of(w, lang, declared) for w in rest)
    return ToolWords(tool, frozenset(action), frozenset(nouns), objects)


@dataclass(frozen=True, slots=True)
class Readings:
    """A tool set read in one language, and the words that carry an action named as a noun
    ("realizar", "完成")."""

    tools: tuple[ToolWords, ...]
    light: frozenset[str]


def readings_in(
    tools: Iterable[str], lang: str, declared: Mapping[str, tuple[str, ...]]
) -> Readings:
    """Every tool of the set that names an action, read in `lang` (compiled once per agent)."""
    found = (tool_words(t, lang, declared) for t in sorted(tools))
    return Readings(tuple(r for r in found if r is not None),
                    frozenset(_WORDS["issue"][lang].split()))


class LanguageClaims:
    """What the claim extractors of every language share: a tool set's readings in `lang`
    (claims_latin.py and claims_cjk.py add their own cues and rules)."""

    def __init__(self, tools: Iterable[str], lang: str,
                 declared: Mapping[str, tuple[str, ...]]) -> None:  # fmt: skip
        self.lang = lang
        known = readings_in(tools, lang, declared)
        self.readings, self.light = known.tools, known.light


def declared_words(
    words: Iterable[tuple[str, str, tuple[str, ...]]], lang: str
) -> dict[str, tuple[str, ...]]:
    """`narrative.words` of one language: English name word -> its words there."""
    return {word: lemmas for code, word, lemmas in words if code == lang}


__all__ = ["CJK", "LATIN", "LIGHT", "OTHER_LANGUAGES", "SUPPORTED", "LanguageClaims", "Readings",
           "ToolWords", "declared_words", "readings_in", "tool_words", "words_of"]
