import type { z } from 'zod';
import type { Deps } from '../deps';
import { listPage, pageEnvelopeSchema, type PageQuery, pageQuery } from '../http/pagination';
import { notFound } from '../http/problem';
import { route, type RouteDef } from '../http/route';
import { type CatalogueTable, deleteItem, getItem, listItems } from '../store/catalogue';
import { inTransaction, type Tx } from '../store/db';
import type { CatalogueFamily, EventType } from '../domain/event-types';
import { changeCatalogueItem, createCatalogueItem } from '../commands/catalogue-changes';
import { CATALOGUE, CATALOGUE_VIEWS, type Group, patchOf, type viewOf } from '../schemas/catalogue';
import { EXAMPLE_TIME, IDS, page } from './examples';

// The five operations every catalogue group has (schemas/catalogue.ts says what each group is):
// list, create, get, change and delete, each declared once over the group's kit.

const CATALOGUE_IDS: Record<string, string> = {
  product: IDS.product,
  plan: IDS.plan,
  tax: '01943a6e-1a2b-7c3d-8e4f-5a6b7c8d9e0f',
  shipping: '01943a6e-2b3c-7d4e-9f50-6b7c8d9e0f1a',
  coupon: '01943a6e-3c4d-7e5f-a061-7c8d9e0f1a2b',
};

/** What a group's routes share: its view, its words and paths, and how a change is stored and told. */
function kitOf<T extends CatalogueTable>(g: Group<T, z.ZodObject>) {
  const { output, present } = CATALOGUE_VIEWS[g.group as CatalogueFamily] as unknown as ReturnType<typeof viewOf<T>>;
  return {
    g,
    output,
    present,
    object: { id: CATALOGUE_IDS[g.group]!, ...g.example.object, created: EXAMPLE_TIME, updated: EXAMPLE_TIME },
    a: `${/^[aeiou]/i.test(g.group) ? 'an' : 'a'} ${g.title.toLowerCase()}`,
    base: `/${g.group}/`,
    item: `/${g.group}/{id}/`,
    tag: g.title,
    notFound: () => notFound(g.group),
    /** Every change of a catalogue object is an event (`product.created`, …), written with the change (catalogue-changes.ts for the others). */
    emit: (trx: Tx, change: 'deleted', id: string, deps: Deps, now: Date) =>
      deps.outbox.emit(trx, `${g.group}.${change}` as EventType, id, now),
  };
}

type Kit<T extends CatalogueTable> = ReturnType<typeof kitOf<T>>;

/** A list's filters as the store takes them: `enabled` a boolean, absent ones left out. */
function whereOf(filters: Record<string, string | undefined>): Record<string, string | boolean> {
  return Object.fromEntries(
    Object.entries(filters)
      .filter((entry): entry is [string, string] => entry[1] !== undefined)
      .map(([key, v]) => [key, key === 'enabled' ? v === 'true' : v]),
  );
}

function listRoute<T extends CatalogueTable>(k: Kit<T>): RouteDef {
  const { g } = k;
  const many = g.noun.many;
  return route({
    method: 'get',
    path: k.base,
    operationId: `list${many}`,
    summary: `List ${many.replace(/(?!^)([A-Z])/g, ' $1').toLowerCase()}, newest first`,
    description: `The ${g.title.toLowerCase()} objects of your catalogue, newest first, a page at a time.`,
    example: { response: page([k.object]) },
    tag: k.tag,
    query: pageQuery.extend(g.filters.shape),
    response: pageEnvelopeSchema(k.output),
    status: 200,
    handler(ctx) {
      const query = ctx.query as PageQuery & Record<string, string>;
      return listPage({ ...ctx, query }, (filters, p) => listItems(ctx.db, g.table, ctx.env.id, whereOf(filters), p), k.present);
    },
  });
}

function createRoute<T extends CatalogueTable>(k: Kit<T>): RouteDef {
  return route({
    method: 'post',
    path: k.base,
    operationId: `create${k.g.noun.one}`,
    summary: `Create ${k.a}`,
    description: `Adds ${k.a} to your catalogue. Fields with a default may be left out.`,
    example: { request: k.g.example.request, response: k.object },
    tag: k.tag,
    body: k.g.fields,
    response: k.output,
    status: 201,
    async handler({ env, body, deps, db }) {
      return k.present(await createCatalogueItem(deps, db, k.g, env.id, body));
    },
  });
}

function getRoute<T extends CatalogueTable>(k: Kit<T>): RouteDef {
  return route({
    method: 'get',
    path: k.item,
    operationId: `get${k.g.noun.one}`,
    summary: `Get ${k.a}`,
    description: `One ${k.g.title.toLowerCase()} of your catalogue.`,
    example: { response: k.object },
    tag: k.tag,
    response: k.output,
    status: 200,
    async handler({ env, params, db }) {
      const row = await getItem(db, k.g.table, env.id, params.id!);
      if (!row) throw k.notFound();
      return k.present(row);
    },
  });
}

function updateRoute<T extends CatalogueTable>(k: Kit<T>): RouteDef {
  const { g } = k;
  return route({
    method: 'patch',
    path: k.item,
    operationId: `update${g.noun.one}`,
    summary: `Change fields of ${k.a}`,
    description: 'Changes the fields sent (at least one) and checks the whole object again; fields not sent stay as they are.',
    example: { request: { name: String(g.example.object.name) }, response: k.object },
    tag: k.tag,
    body: patchOf(g.fields),
    response: k.output,
    status: 200,
    async handler({ env, params, body, deps, db }) {
      const updated = await changeCatalogueItem(deps, db, g, env.id, params.id!, body);
      if (!updated) throw k.notFound();
      return k.present(updated);
    },
  });
}

function deleteRoute<T extends CatalogueTable>(k: Kit<T>): RouteDef {
  return route({
    method: 'delete',
    path: k.item,
    operationId: `delete${k.g.noun.one}`,
    summary: `Delete ${k.a}`,
    description: `Deletes ${k.a}; transactions that used it keep their copy of its name and price.`,
    example: {},
    tag: k.tag,
    status: 204,
    async handler({ env, params, deps, db }) {
      const now = deps.now();
      await inTransaction(db, async (trx) => {
        if (!(await getItem(trx, k.g.table, env.id, params.id!))) throw k.notFound();
        // The event shows the object as it was: written before the row goes.
        await k.emit(trx, 'deleted', params.id!, deps, now);
        await deleteItem(trx, k.g.table, env.id, params.id!);
      });
    },
  });
}

function groupRoutes<T extends CatalogueTable>(g: Group<T, z.ZodObject>): RouteDef[] {
  const k = kitOf(g);
  return [listRoute(k), createRoute(k), getRoute(k), updateRoute(k), deleteRoute(k)];
}

export const catalogueRoutes = (): RouteDef[] => CATALOGUE.flatMap(groupRoutes);
