/*
 * What device subscriptions need of the detected devices, apart from both (src/objects/device-catalog.ts
 * provides it, src/events/device-events.ts uses it), so that neither imports the other's neighbours.
 */

/** Where a state sits: its device and its role there. */
export interface DeviceRole {
    device: string;
    role: string;
}

/** The devices as subscriptions need them (src/objects/device-catalog.ts provides it). */
export interface DeviceSource {
    /** State id → device and role, of a device id or of every device of an enum.rooms.* / enum.functions.* id; null: unknown. */
    statesOf(id: string): Promise<Map<string, DeviceRole> | null>;
    /** Told (once per burst) after the devices may have changed; answers the function that stops it. */
    watch(listener: () => void): () => void;
}
