"""The API answers in the language the client asks for (Accept-Language) and keeps its machine
codes: `code`, the field paths of `errors` and the JSON keys are the same in every language."""

import pytest

from pit.shoes.models import Coup
from tests.api.conftest import coup_body

pytestmark = pytest.mark.django_db


def _bad_coup(device, shoe, language=None):
    body = coup_body(wagers=[{"seat": 1, "bet": "player", "amount": "0.00"}])
    headers = {"HTTP_ACCEPT_LANGUAGE": language} if language else {}
    return device.post(f"/api/v1/shoes/{shoe.pk}/coups/", body, format="json", **headers)


@pytest.mark.parametrize(
    ("language", "message", "problem", "content_language"),
    [
        (None, "The request has errors; see `errors`.", "The amount must be more than zero.", "en-us"),
        ("zh-hant", "請求有錯誤,請見 `errors`。", "金額必須大於零。", "zh-hant"),
        ("zh-Hant-MO", "請求有錯誤,請見 `errors`。", "金額必須大於零。", "zh-hant"),
        ("zh-hans", "请求有错误,请见 `errors`。", "金额必须大于零。", "zh-hans"),
        ("zh-CN,zh;q=0.9,en;q=0.5", "请求有错误,请见 `errors`。", "金额必须大于零。", "zh-hans"),
    ],
)
def test_an_error_answers_in_the_asked_language_with_the_same_codes(
    device, shoe, language, message, problem, content_language
):
    response = _bad_coup(device, shoe, language)
    assert response.status_code == 400
    assert response["Content-Language"] == content_language
    assert response.json() == {
        "status": 400,
        "code": "invalid",
        "message": message,
        "errors": {"wagers[0].amount": [problem]},
        "details": {},
    }
    assert not Coup.objects.exists()


def test_a_conflict_keeps_its_code_and_field_paths_in_chinese(device, shoe):
    first = device.post(f"/api/v1/shoes/{shoe.pk}/coups/", coup_body(), format="json")
    assert first.status_code == 201
    other = coup_body(player=["AH", "AD", "4C"], banker=["2S", "3H"])
    english = device.post(f"/api/v1/shoes/{shoe.pk}/coups/", other, format="json").json()
    chinese = device.post(f"/api/v1/shoes/{shoe.pk}/coups/", other, format="json", HTTP_ACCEPT_LANGUAGE="zh-hant")
    assert chinese.status_code == 409
    body = chinese.json()
    assert body["code"] == english["code"] == "conflict"
    assert set(body["errors"]) == set(english["errors"]) and body["errors"]
    assert body["message"] != english["message"]
    assert "沒有寫入任何資料" in body["message"]
    assert Coup.objects.count() == 1


def test_an_unknown_api_path_answers_in_chinese(device):
    response = device.get("/api/v1/nowhere/", HTTP_ACCEPT_LANGUAGE="zh-hant")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    assert response.json()["message"] == "/api/v1/nowhere/ 沒有 API 資源。"
