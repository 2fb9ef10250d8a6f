import { HttpError } from '../http/http-error';

/** js-controller 5 dropped binary states; the commands stay so old clients get a clear answer. */
export async function binaryStatesRemoved(): Promise<never> {
    throw new HttpError(
        'GONE',
        'This function is deprecated: binary states were removed from ioBroker, store files with writeFile64 and read them with readFile',
    );
}
