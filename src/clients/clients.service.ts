import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { Model, trusted } from 'mongoose';
import { isValidObjectId } from '../common/pipes/object-id';
import { Client } from './client.schema';
import { CLIENT_HARD_DELETING, ClientHardDeletingEvent } from './clients.events';
import { toClientResponse } from './clients.mapper';
import { ClientResponse } from './dto/client.response';
import { CreateClientDto } from './dto/create-client.dto';
import { ListClientsQuery } from './dto/list-clients.query';
import { UpdateClientDto } from './dto/update-client.dto';

const NOT_FOUND = 'Client not found';
const WRITABLE_FIELDS = ['name', 'email', 'phone', 'projectIds'] as const;

type ClientFields = Partial<Pick<Client, (typeof WRITABLE_FIELDS)[number]>>;

/** Copies only the contract's writable fields, so nothing else of a body reaches the database. */
export function clientFields(dto: UpdateClientDto): ClientFields {
  const fields: Record<string, unknown> = {};
  for (const key of WRITABLE_FIELDS) {
    if (dto[key] !== undefined) fields[key] = key === 'projectIds' ? dto.projectIds!.map((id) => id.toLowerCase()) : dto[key];
  }
  return fields as ClientFields;
}

const live = { deletedAt: null };
const softDeleted = { deletedAt: trusted({ $ne: null }) };

@Injectable()
export class ClientsService {
  constructor(
    @InjectModel(Client.name) private readonly clients: Model<Client>,
    private readonly events: EventEmitter2,
  ) {}

  /** True when a client with this id exists and is not soft-deleted. A malformed id is simply false. */
  async isLive(clientId: string): Promise<boolean> {
    if (!isValidObjectId(clientId)) return false;
    return (await this.clients.exists({ _id: clientId, ...live }).exec()) !== null;
  }

  async create(dto: CreateClientDto): Promise<string> {
    const created = await this.clients.create(clientFields(dto));
    return String(created._id);
  }

  /** One page, newest first, and the total of the filter for `X-Total-Count`. */
  async list(query: ListClientsQuery): Promise<{ items: ClientResponse[]; total: number }> {
    const filter = query.includeDeleted ? {} : live;
    const [rows, total] = await Promise.all([
      this.clients.find(filter).sort({ _id: -1 }).skip(query.skip).limit(query.limit).lean<Client[]>().exec(),
      this.clients.countDocuments(filter).exec(),
    ]);
    return { items: rows.map(toClientResponse), total };
  }

  async get(id: string, includeDeleted: boolean): Promise<ClientResponse> {
    const client = await this.clients
      .findOne({ _id: id, ...(includeDeleted ? {} : live) })
      .lean<Client>()
      .exec();
    if (!client) throw new NotFoundException(NOT_FOUND);
    return toClientResponse(client);
  }

  /** Only a live client can be updated; the guard sits in the filter, so a concurrent soft delete wins cleanly. */
  async update(id: string, dto: UpdateClientDto): Promise<void> {
    const result = await this.clients.updateOne({ _id: id, ...live }, { $set: clientFields(dto) }).exec();
    if (result.matchedCount === 0) throw new NotFoundException(NOT_FOUND);
  }

  async softDelete(id: string): Promise<void> {
    const result = await this.clients.updateOne({ _id: id, ...live }, { $set: { deletedAt: new Date() } }).exec();
    if (result.matchedCount === 0) throw new NotFoundException(NOT_FOUND);
  }

  /** Only a soft-deleted client can be restored; a live or unknown id is 404. */
  async restore(id: string): Promise<void> {
    const result = await this.clients.updateOne({ _id: id, ...softDeleted }, { $set: { deletedAt: null } }).exec();
    if (result.matchedCount === 0) throw new NotFoundException(NOT_FOUND);
  }

  /**
   * Removes the client whether live or soft-deleted. Child modules are asked first: a listener
   * that still finds channels of this client throws a ConflictException and nothing is removed.
   */
  async hardDelete(id: string): Promise<void> {
    if ((await this.clients.exists({ _id: id }).exec()) === null) throw new NotFoundException(NOT_FOUND);
    const event: ClientHardDeletingEvent = { clientId: id };
    await this.events.emitAsync(CLIENT_HARD_DELETING, event);
    const result = await this.clients.deleteOne({ _id: id }).exec();
    if (result.deletedCount === 0) throw new NotFoundException(NOT_FOUND);
  }
}
