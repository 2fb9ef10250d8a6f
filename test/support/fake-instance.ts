/*
 * A stand-in adapter instance that answers sendTo over js-controller's real message boxes:
 * an instance object, an alive state and a states client subscribed to its message box.
 */
import { connectStatesClient } from '../../scripts/embedded-storage';
import type { IobFixture } from './iobroker';

export type MessageHandler = (command: string, message: unknown) => unknown | Promise<unknown>;

export interface FakeInstance {
    /** Every message received, in order. */
    received: Array<{ command: string; message: unknown }>;
    setAlive(alive: boolean): Promise<void>;
    close(): Promise<void>;
}

interface Message {
    command: string;
    message: unknown;
    from: string;
    callback?: { id: number; ack: boolean; message?: unknown; time?: number };
}

/**
 * `name` is an instance (`echo.0`) or a host (`system.host.<name>`, answering sendToHost).
 * `handler` returning `undefined` sends no reply (to test timeouts).
 */
export async function fakeInstance(iob: Pick<IobFixture, 'storage'>, name: string, handler: MessageHandler): Promise<FakeInstance> {
    const isHost = name.startsWith('system.host.');
    const id = isHost ? name : `system.adapter.${name}`;
    if (!isHost) {
        await iob.storage.objects.setObjectAsync(id, {
            _id: id,
            type: 'instance',
            common: { name: name.split('.')[0], enabled: true, host: 'test', mode: 'daemon', version: '1.0.0', messagebox: true },
            native: {},
        });
    } else if (!(await iob.storage.objects.getObjectAsync(id))) {
        await iob.storage.objects.setObjectAsync(id, { _id: id, type: 'host', common: { name: id.slice(12), hostname: id.slice(12) }, native: {} });
    }
    const received: FakeInstance['received'] = [];
    let client: any;
    client = await connectStatesClient(iob.storage, async (channel: string, obj: unknown) => {
        if (channel !== `messagebox.${id}` || !obj) {
            return;
        }
        const msg = obj as Message;
        received.push({ command: msg.command, message: msg.message });
        const reply = await handler(msg.command, msg.message);
        if (reply !== undefined && msg.callback && !msg.callback.ack) {
            await client.pushMessage(msg.from, { command: msg.command, message: reply, from: id, callback: { ...msg.callback, ack: true } });
        }
    });
    await client.subscribeMessage(id);
    const setAlive = (alive: boolean): Promise<void> => iob.storage.states.setStateAsync(`${id}.alive`, { val: alive, ack: true, from: id });
    await setAlive(true);
    return {
        received,
        setAlive,
        async close() {
            await setAlive(false);
            await client.destroy();
        },
    };
}
