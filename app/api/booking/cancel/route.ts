import { handlersFor } from '@/lib/http/write-route';
import { bookingCancelRoute } from '@/lib/write-routes/booking-cancel';

export const { POST, GET, PUT, PATCH, DELETE } = handlersFor(bookingCancelRoute);
