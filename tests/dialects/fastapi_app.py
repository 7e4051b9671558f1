"""A small FastAPI application whose errors the fastapi tests read (real 422 bodies,
made in-process by FastAPI and Pydantic). No `from __future__ import annotations`
here: FastAPI reads these annotations at run time."""

from typing import Annotated

from fastapi import Cookie, FastAPI, Header, HTTPException, Query
from pydantic import BaseModel, Field


class Address(BaseModel):
    city: str
    zip: Annotated[str, Field(pattern=r"^[0-9]{5}$")]


class Item(BaseModel):
    name: str
    price: Annotated[float, Field(gt=0)]
    tags: list[int] = []
    address: Address | None = None


class Person(BaseModel):
    age: Annotated[int, Field(gt=0)]


app = FastAPI()


@app.post("/items/")
def create(item: Item) -> dict[str, str]:
    return {"ok": "yes"}


@app.post("/people/")
def people(people: list[Person]) -> dict[str, str]:
    return {"ok": "yes"}


@app.get("/items/{item_id}")
def read(item_id: int, q: Annotated[list[int] | None, Query()] = None) -> dict[str, str]:
    if item_id == 404:
        raise HTTPException(status_code=404)
    if item_id == 403:
        raise HTTPException(status_code=403, detail="Not enough permissions")
    return {"ok": "yes"}


@app.get("/secure/")
def secure(x_token: Annotated[str, Header()], session: Annotated[str, Cookie()]) -> dict[str, str]:
    return {"ok": "yes"}
